package shadercache

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Concurrent writers store self-checking payloads: an 8-byte seed followed
// by bytes generated from the seed and the entry's name. A reader that got
// a torn, mixed or misplaced entry would see bytes that do not regenerate.

func selfChecking(name string, writer, seq uint32) []byte {
	seed := uint64(writer)<<32 | uint64(seq)
	n := 4096 + int(seed*2654435761%8192)
	b := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+n), seed)
	return appendStream(b, name, seed, n)
}

func appendStream(b []byte, name string, seed uint64, n int) []byte {
	h := fnv.New64a()
	h.Write([]byte(name))
	x := h.Sum64() ^ seed | 1
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b = append(b, byte(x))
	}
	return b
}

// checkSelfChecking returns an error if b is not a payload selfChecking made for name.
func checkSelfChecking(name string, b []byte) error {
	if len(b) < 8 {
		return fmt.Errorf("%s: %d bytes, too short", name, len(b))
	}
	seed := binary.LittleEndian.Uint64(b)
	want := selfChecking(name, uint32(seed>>32), uint32(seed))
	if !bytes.Equal(b, want) {
		return fmt.Errorf("%s: %d bytes do not match the payload of writer %d seq %d", name, len(b), seed>>32, uint32(seed))
	}
	return nil
}

// hammer has one writer write and read the shared names ops times, and
// returns the first wrong read.
func hammer(s BinaryIO, writer uint32, ops int) error {
	for i := range ops {
		name := fmt.Sprintf("kernel-%d", (i*7+int(writer))%12)
		var err error
		switch i % 3 {
		case 0:
			err = s.WriteInternal(name, selfChecking(name, writer, uint32(i)))
		case 1:
			err = s.WriteShaderCache(keyFor(name), selfChecking(keyFor(name).String(), writer, uint32(i)))
		}
		if err != nil {
			return fmt.Errorf("writer %d: %w", writer, err)
		}
		got, ok, err := s.ReadInternal(name)
		if err != nil {
			return fmt.Errorf("writer %d: %w", writer, err)
		}
		if ok {
			if err := checkSelfChecking(name, got); err != nil {
				return fmt.Errorf("writer %d read a wrong entry: %w", writer, err)
			}
		}
		key := keyFor(name)
		got, ok, err = s.ReadShaderCache(key)
		if err != nil {
			return fmt.Errorf("writer %d: %w", writer, err)
		}
		if ok {
			if err := checkSelfChecking(key.String(), got); err != nil {
				return fmt.Errorf("writer %d read a wrong entry: %w", writer, err)
			}
		}
	}
	return nil
}

func TestConcurrentGoroutines(t *testing.T) {
	for _, maxSize := range []int64{0, 48 << 10} {
		d, err := NewDir(t.TempDir(), WithLogger(quiet), WithMaxSize(maxSize))
		require.NoError(t, err)
		for name, s := range map[string]BinaryIO{"dir": d, "memory": NewMemory(WithMaxSize(maxSize))} {
			t.Run(fmt.Sprintf("%s/cap=%d", name, maxSize), func(t *testing.T) {
				var wg sync.WaitGroup
				errs := make(chan error, 16)
				for w := range 16 {
					wg.Go(func() {
						if err := hammer(s, uint32(w), 150); err != nil {
							errs <- err
						}
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					require.NoError(t, err)
				}
				if maxSize > 0 && name == "dir" {
					require.LessOrEqual(t, regenerableBytes(t, d), maxSize)
				}
			})
		}
	}
}

// childEnv, when set, makes the test binary a child writer for
// TestConcurrentProcesses instead of running tests: its value is
// "<dir>,<writer id>,<ops>,<cap>".
const childEnv = "LUCENT_SHADERCACHE_TEST_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(childWriter(spec))
	}
	os.Exit(m.Run())
}

func childWriter(spec string) int {
	parts := strings.Split(spec, ",")
	if len(parts) != 4 {
		fmt.Fprintf(os.Stderr, "bad %s=%q\n", childEnv, spec)
		return 2
	}
	writer, err1 := strconv.Atoi(parts[1])
	ops, err2 := strconv.Atoi(parts[2])
	maxSize, err3 := strconv.ParseInt(parts[3], 10, 64)
	d, err4 := NewDir(parts[0], WithLogger(quiet), WithMaxSize(maxSize))
	if err := errorsJoin(err1, err2, err3, err4); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := hammer(d, uint32(writer), ops); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Tell the parent this process really wrote to the directory.
	if err := d.WriteBytecode(fmt.Sprint("done-", writer), []byte(spec)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func errorsJoin(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestConcurrentProcesses runs two child processes (this test binary run
// again as writers) and the test itself against one directory: no process
// ever reads a wrong entry, and what is left is whole.
func TestConcurrentProcesses(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	for _, maxSize := range []int64{0, 48 << 10} {
		t.Run(fmt.Sprintf("cap=%d", maxSize), func(t *testing.T) {
			root := t.TempDir()
			d, err := NewDir(root, WithLogger(quiet), WithMaxSize(maxSize))
			require.NoError(t, err)
			const ops = 300
			var children []*exec.Cmd
			var outs []*bytes.Buffer
			for w := 1; w <= 2; w++ {
				cmd := exec.Command(exe, "-test.run=^$", "-test.count=1")
				cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%d,%d", childEnv, root, w, ops, maxSize))
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				require.NoError(t, cmd.Start())
				children = append(children, cmd)
				outs = append(outs, &out)
			}
			parentErr := hammer(d, 0, ops)
			for i, cmd := range children {
				require.NoError(t, cmd.Wait(), "child %d: %s", i+1, outs[i])
			}
			require.NoError(t, parentErr)
			for w := 1; w <= 2; w++ {
				_, ok, err := d.ReadBytecode(fmt.Sprint("done-", w))
				require.NoError(t, err)
				require.True(t, ok, "child %d did not run as a writer", w)
			}

			// Every entry left reads back whole; no temporary file is left.
			for _, k := range []kind{kindInternal, kindShader} {
				ents, err := os.ReadDir(filepath.Join(root, k.String()))
				require.NoError(t, err)
				for _, e := range ents {
					require.True(t, isEntryName(e.Name()), "left behind: %s", e.Name())
				}
			}
			found := 0
			for i := range 12 {
				name := fmt.Sprintf("kernel-%d", i)
				got, ok, err := d.ReadInternal(name)
				require.NoError(t, err)
				if ok {
					found++
					require.NoError(t, checkSelfChecking(name, got))
				}
			}
			if maxSize == 0 {
				require.Equal(t, 12, found)
			}
			require.Zero(t, d.Stats().Damaged)
		})
	}
}
