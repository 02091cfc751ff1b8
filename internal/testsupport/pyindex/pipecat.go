package pyindex

import (
	_ "embed"
	"sync"
)

// The index of pipecat-ai 1.7.0, the framework generated projects run on,
// built by internal/pyindexgen from the release's source
// (testdata/pipecat-ai-1.7.0.tar.gz; testdata/pipecat-ai-1.7.0.files
// lists its files' git blob ids at the tag).
//
//go:embed testdata/pipecat-ai-1.7.0.json
var pipecatJSON []byte

// PipecatFile is the committed index's path, relative to this package.
const PipecatFile = "testdata/pipecat-ai-1.7.0.json"

var pipecat = sync.OnceValues(func() (*Index, error) { return Unmarshal(pipecatJSON) })

// Pipecat is the index of pipecat-ai 1.7.0. The caller must not change
// it (one copy is shared).
func Pipecat() (*Index, error) { return pipecat() }
