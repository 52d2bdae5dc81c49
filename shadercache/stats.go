package shadercache

import (
	"context"
	"log/slog"
	"sync/atomic"
)

// Stats counts what a store has done since it was made.
type Stats struct {
	Hits      uint64 // reads that returned an entry
	Misses    uint64 // reads that found nothing usable (Damaged included, but for bytecode)
	Damaged   uint64 // reads that found an entry truncated, corrupt or of another format version
	Writes    uint64 // entries written
	Evictions uint64 // entries removed to keep the store under its size cap
}

// counters are a store's live Stats.
type counters struct {
	hits, misses, damaged, writes, evictions atomic.Uint64
}

func (c *counters) snapshot() Stats {
	return Stats{
		Hits:      c.hits.Load(),
		Misses:    c.misses.Load(),
		Damaged:   c.damaged.Load(),
		Writes:    c.writes.Load(),
		Evictions: c.evictions.Load(),
	}
}

// debug logs at debug level, building the attributes only when enabled so
// that a hit costs no allocation when debug logging is off.
func debug(l *slog.Logger, msg string, k kind, name string, attrs ...slog.Attr) {
	if !l.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	l.LogAttrs(context.Background(), slog.LevelDebug, msg,
		append([]slog.Attr{slog.String("kind", k.String()), slog.String("name", name)}, attrs...)...)
}
