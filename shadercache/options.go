package shadercache

import "log/slog"

// Option configures a store made by [NewDir] or [NewMemory].
type Option func(*config)

type config struct {
	logger  *slog.Logger
	maxSize int64
	hasMax  bool
}

// DefaultMaxSize is the size cap of a directory store made without
// [WithMaxSize]: 256 MiB of regenerable entries.
const DefaultMaxSize = 256 << 20

// WithLogger sets the logger that receives hits, misses, writes and evictions
// at debug level, and damaged entries at warn level. Without it the store
// logs to [slog.Default].
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithMaxSize caps the bytes held by regenerable entries (shader cache
// entries, internal shaders, pipeline caches). When a write takes the store
// over the cap, the least recently used entries are evicted until it holds
// at most 90% of it; a single entry larger than that is refused with
// [ErrTooLarge]. A [Dir] counts file sizes (headers included), a [Memory]
// payload sizes. Zero or less means no cap. A directory store is capped
// at [DefaultMaxSize] unless told otherwise; a memory store is not capped.
// Bytecode is never evicted and does not count towards the cap.
func WithMaxSize(bytes int64) Option {
	return func(c *config) { c.maxSize, c.hasMax = bytes, true }
}

func newConfig(defaultMax int64, opts []Option) config {
	c := config{maxSize: defaultMax}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	if c.maxSize < 0 {
		c.maxSize = 0
	}
	return c
}

// lowWater is the fraction of the cap an eviction brings the store down to,
// so that a store at its cap does not evict on every write.
func lowWater(max int64) int64 { return max - max/10 }
