package shadercache

import (
	"container/list"
	"fmt"
	"log/slog"
	"sync"
)

// Memory is a [BinaryIO] that holds entries in memory, for tests and for
// programs that must not touch the disk. It copies data on the way in and
// on the way out, so callers never share a slice with it. With
// [WithMaxSize] it evicts least recently used regenerable entries like a
// [Dir].
type Memory struct {
	max   int64
	log   *slog.Logger
	stats counters

	mu      sync.Mutex
	entries map[memKey]*memEntry
	lru     list.List // of memKey, regenerable entries only, most recent first
	size    int64     // bytes of regenerable entries
}

type memKey struct {
	kind kind
	name string
}

type memEntry struct {
	data []byte
	elem *list.Element // nil for bytecode, which is never evicted
}

// NewMemory returns an empty in-memory store.
func NewMemory(opts ...Option) *Memory {
	cfg := newConfig(0, opts)
	return &Memory{max: cfg.maxSize, log: cfg.logger, entries: make(map[memKey]*memEntry)}
}

// Stats returns the store's counters.
func (m *Memory) Stats() Stats { return m.stats.snapshot() }

// ReadBytecode implements [BinaryIO].
func (m *Memory) ReadBytecode(name string) ([]byte, bool, error) {
	return m.read(kindBytecode, name)
}

// WriteBytecode implements [BinaryIO].
func (m *Memory) WriteBytecode(name string, data []byte) error {
	return m.write(kindBytecode, name, data)
}

// ReadShaderCache implements [BinaryIO].
func (m *Memory) ReadShaderCache(key Key) ([]byte, bool, error) {
	return m.read(kindShader, key.String())
}

// WriteShaderCache implements [BinaryIO].
func (m *Memory) WriteShaderCache(key Key, data []byte) error {
	return m.write(kindShader, key.String(), data)
}

// ReadInternal implements [BinaryIO].
func (m *Memory) ReadInternal(name string) ([]byte, bool, error) {
	return m.read(kindInternal, name)
}

// WriteInternal implements [BinaryIO].
func (m *Memory) WriteInternal(name string, data []byte) error {
	return m.write(kindInternal, name, data)
}

// ReadPipelineCache implements [BinaryIO].
func (m *Memory) ReadPipelineCache(id PipelineID) ([]byte, bool, error) {
	return m.read(kindPipeline, id.String())
}

// WritePipelineCache implements [BinaryIO].
func (m *Memory) WritePipelineCache(id PipelineID, data []byte) error {
	return m.write(kindPipeline, id.String(), data)
}

// Clear implements [BinaryIO].
func (m *Memory) Clear() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, e := range m.entries {
		if e.elem != nil {
			delete(m.entries, key)
		}
	}
	m.lru.Init()
	m.size = 0
	return nil
}

func (m *Memory) read(k kind, name string) ([]byte, bool, error) {
	if err := checkName(k, name); err != nil {
		return nil, false, err
	}
	m.mu.Lock()
	e, ok := m.entries[memKey{k, name}]
	var data []byte
	if ok {
		data = append([]byte(nil), e.data...)
		if e.elem != nil {
			m.lru.MoveToFront(e.elem)
		}
	}
	m.mu.Unlock()
	if !ok {
		m.stats.misses.Add(1)
		debug(m.log, "shadercache: miss", k, name)
		return nil, false, nil
	}
	if data == nil {
		data = []byte{} // a hit on an empty entry is not nil
	}
	m.stats.hits.Add(1)
	debug(m.log, "shadercache: hit", k, name, slog.Int("bytes", len(data)))
	return data, true, nil
}

func (m *Memory) write(k kind, name string, data []byte) error {
	if err := checkName(k, name); err != nil {
		return err
	}
	size := int64(len(data))
	if size > MaxEntrySize || k.regenerable() && m.max > 0 && size > lowWater(m.max) {
		return fmt.Errorf("shadercache: write %s %q: %d bytes: %w", k, name, size, ErrTooLarge)
	}
	key := memKey{k, name}
	e := &memEntry{data: append([]byte(nil), data...)}
	evicted := 0
	m.mu.Lock()
	if old, ok := m.entries[key]; ok && old.elem != nil {
		m.lru.Remove(old.elem)
		m.size -= int64(len(old.data))
	}
	if k.regenerable() {
		e.elem = m.lru.PushFront(key)
		m.size += size
	}
	m.entries[key] = e
	if m.max > 0 && m.size > m.max {
		for m.size > lowWater(m.max) {
			back := m.lru.Back()
			if back == nil || back == e.elem {
				break
			}
			victim := m.lru.Remove(back).(memKey)
			m.size -= int64(len(m.entries[victim].data))
			delete(m.entries, victim)
			evicted++
		}
	}
	m.mu.Unlock()
	m.stats.writes.Add(1)
	m.stats.evictions.Add(uint64(evicted))
	debug(m.log, "shadercache: write", k, name, slog.Int("bytes", len(data)))
	return nil
}
