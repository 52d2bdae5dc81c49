package shadercache

// Disabled is a [BinaryIO] that stores nothing: every read misses and every
// write is discarded. Names are still validated, so a program behaves the
// same with caching on or off.
var Disabled BinaryIO = disabled{}

type disabled struct{}

func (disabled) ReadBytecode(name string) ([]byte, bool, error) {
	return nil, false, checkName(kindBytecode, name)
}

func (disabled) WriteBytecode(name string, _ []byte) error { return checkName(kindBytecode, name) }

func (disabled) ReadShaderCache(Key) ([]byte, bool, error) { return nil, false, nil }

func (disabled) WriteShaderCache(Key, []byte) error { return nil }

func (disabled) ReadInternal(name string) ([]byte, bool, error) {
	return nil, false, checkName(kindInternal, name)
}

func (disabled) WriteInternal(name string, _ []byte) error { return checkName(kindInternal, name) }

func (disabled) ReadPipelineCache(PipelineID) ([]byte, bool, error) { return nil, false, nil }

func (disabled) WritePipelineCache(PipelineID, []byte) error { return nil }

func (disabled) Clear() error { return nil }
