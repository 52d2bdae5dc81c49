package vulkan

import (
	"bytes"
	"encoding/binary"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/shadercache"
	"github.com/lucent-gpu/lucent/vk"
)

// pipelineStore records the pipeline-cache traffic of a store.
type pipelineStore struct {
	shadercache.BinaryIO
	mu            sync.Mutex
	reads, writes []shadercache.PipelineID
	override      []byte // returned by reads instead of the stored blob
}

func (s *pipelineStore) ReadPipelineCache(id shadercache.PipelineID) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads = append(s.reads, id)
	if s.override != nil {
		return append([]byte{}, s.override...), true, nil
	}
	return s.BinaryIO.ReadPipelineCache(id)
}

func (s *pipelineStore) WritePipelineCache(id shadercache.PipelineID, data []byte) error {
	s.mu.Lock()
	s.writes = append(s.writes, id)
	s.mu.Unlock()
	return s.BinaryIO.WritePipelineCache(id, data)
}

func openCached(t *testing.T, store shadercache.BinaryIO) (*Device, *messages) {
	t.Helper()
	msgs := &messages{}
	d, err := Open(device.Options{DeviceIndex: -1, ValidationLayer: true, Debug: msgs.add, ShaderCache: store,
		Logger: slog.New(slog.DiscardHandler)})
	testenv.Need(t, "a Vulkan device with the validation layer", err)
	return d, msgs
}

// makePipeline creates (and destroys) a pipeline, which goes through the
// device's pipeline cache.
func makePipeline(t *testing.T, d *Device) {
	t.Helper()
	sh, _, err := d.CreateShader(device.ShaderDesc{SPIRV: compile(t, "add"), Name: "add"})
	require.NoError(t, err)
	require.NoError(t, d.DestroyShader(sh))
}

func TestPipelineCacheSavedAndLoaded(t *testing.T) {
	store := &pipelineStore{BinaryIO: shadercache.NewMemory()}
	d1, msgs := openCached(t, store)
	id := shadercache.PipelineID{DeviceUUID: d1.phys.props.PipelineCacheUUID, DriverVersion: d1.phys.props.DriverVersion}
	require.Equal(t, []shadercache.PipelineID{id}, store.reads, "looked up at Open under the device's UUID and driver version")
	require.Zero(t, d1.PipelineCacheStats().LoadedBytes)
	makePipeline(t, d1)
	st := d1.PipelineCacheStats()
	require.Equal(t, st.Reported, st.Hits+st.Misses)
	if d1.pcache.feedback {
		require.Equal(t, uint64(1), st.Reported, "creation feedback for the one pipeline")
	}
	require.NoError(t, d1.Close())
	require.Empty(t, formatMessages(msgs.take()))
	require.Equal(t, []shadercache.PipelineID{id}, store.writes, "saved at Close")

	rec, ok, err := store.BinaryIO.ReadPipelineCache(id)
	require.NoError(t, err)
	require.True(t, ok)
	blob, err := shadercache.DecodeRecord(rec, shadercache.RecordPipelineCache, id.String())
	require.NoError(t, err, "saved in a record of the device's id")
	require.Empty(t, d1.phys.checkPipelineCacheHeader(blob), "the saved blob carries this device's header")

	d2, msgs := openCached(t, store)
	require.Equal(t, len(blob), d2.PipelineCacheStats().LoadedBytes, "the next device is seeded with it")
	require.False(t, d2.PipelineCacheStats().Rejected)
	makePipeline(t, d2)
	require.NoError(t, d2.Close())
	require.Empty(t, formatMessages(msgs.take()))
}

// probePhysical opens a device without a store and returns its physical
// device, to build blobs for it.
func probePhysical(t *testing.T) *physical {
	t.Helper()
	probe, msgs := openCached(t, nil)
	p := probe.phys
	require.False(t, probe.PipelineCacheStats().Persisted)
	require.NoError(t, probe.Close())
	require.Empty(t, formatMessages(msgs.take()))
	return p
}

// headerFor is a bare VkPipelineCacheHeaderVersionOne naming p.
func headerFor(t *testing.T, p *physical) []byte {
	good := make([]byte, pipelineCacheHeaderSize)
	binary.LittleEndian.PutUint32(good[0:], pipelineCacheHeaderSize)
	binary.LittleEndian.PutUint32(good[4:], uint32(vk.PIPELINE_CACHE_HEADER_VERSION_ONE))
	binary.LittleEndian.PutUint32(good[8:], p.props.VendorID)
	binary.LittleEndian.PutUint32(good[12:], p.props.DeviceID)
	copy(good[16:], p.props.PipelineCacheUUID[:])
	require.Empty(t, p.checkPipelineCacheHeader(good))
	return good
}

func pipelineID(p *physical) shadercache.PipelineID {
	return shadercache.PipelineID{DeviceUUID: p.props.PipelineCacheUUID, DriverVersion: p.props.DriverVersion}
}

// TestPipelineCacheRecordChecked: a store that checks nothing hands back a
// blob that is not the one saved for this device — bare, damaged, truncated
// or saved under another device's id. None reaches vkCreatePipelineCache.
func TestPipelineCacheRecordChecked(t *testing.T) {
	p := probePhysical(t)
	id := pipelineID(p)
	blob := append(headerFor(t, p), make([]byte, 64)...)
	binary.LittleEndian.PutUint32(blob[pipelineCacheHeaderSize:], 0xdeadbeef) // stands for the driver's data
	sealed := shadercache.AppendRecord(nil, shadercache.RecordPipelineCache, id.String(), blob)
	other := id
	other.DriverVersion++
	cases := map[string][]byte{
		"bare blob":        blob,
		"flipped data bit": func() []byte { b := bytes.Clone(sealed); b[len(b)-10] ^= 1; return b }(),
		"truncated":        sealed[:len(sealed)-16],
		"another id's":     shadercache.AppendRecord(nil, shadercache.RecordPipelineCache, other.String(), blob),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			store := &pipelineStore{BinaryIO: shadercache.NewMemory(), override: b}
			d, msgs := openCached(t, store)
			st := d.PipelineCacheStats()
			require.True(t, st.Rejected)
			require.Zero(t, st.LoadedBytes)
			makePipeline(t, d)
			require.NoError(t, d.Close())
			require.Empty(t, formatMessages(msgs.take()))
			require.Len(t, store.writes, 1, "the unusable blob is replaced at Close")
		})
	}
}

func TestPipelineCacheIgnoresForeignBlobs(t *testing.T) {
	p := probePhysical(t)
	good := headerFor(t, p)

	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, good...)) }
	cases := map[string]struct {
		blob []byte
		why  string
	}{
		"truncated":      {good[:20], "shorter than"},
		"header size":    {edit(func(b []byte) []byte { b[0] = 64; return b }), "header size 64"},
		"header version": {edit(func(b []byte) []byte { b[4] = 2; return b }), "header version 2"},
		"vendor":         {edit(func(b []byte) []byte { b[8] ^= 1; return b }), "vendor/device"},
		"device":         {edit(func(b []byte) []byte { b[12] ^= 1; return b }), "vendor/device"},
		"uuid":           {edit(func(b []byte) []byte { b[20] ^= 0xff; return b }), "pipelineCacheUUID"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			require.Contains(t, p.checkPipelineCacheHeader(c.blob), c.why)
			// An intact record, so that the header check is what refuses it.
			sealed := shadercache.AppendRecord(nil, shadercache.RecordPipelineCache, pipelineID(p).String(), c.blob)
			store := &pipelineStore{BinaryIO: shadercache.NewMemory(), override: sealed}
			d, msgs := openCached(t, store)
			st := d.PipelineCacheStats()
			require.True(t, st.Rejected)
			require.Zero(t, st.LoadedBytes)
			makePipeline(t, d) // the device works with an empty cache
			require.NoError(t, d.Close())
			require.Empty(t, formatMessages(msgs.take()))
			require.Len(t, store.writes, 1, "the foreign blob is replaced at Close")
		})
	}
}

// TestPipelineCacheDisabled: with caching off (shadercache.Disabled, what
// LUCENT_SHADER_CACHE=off gives) the pipeline cache is not persisted, and
// the stats say so.
func TestPipelineCacheDisabled(t *testing.T) {
	d, msgs := openCached(t, shadercache.Disabled)
	makePipeline(t, d)
	require.False(t, d.PipelineCacheStats().Persisted, "nothing is loaded from or saved to a disabled cache")
	require.Nil(t, d.pcache.store)
	require.NoError(t, d.Close())
	require.Empty(t, formatMessages(msgs.take()))
}
