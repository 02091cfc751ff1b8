package embedded_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/embedded"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// BenchmarkEmbeddedSet is what `botkit cloud secrets set` costs inside the
// process on a warm embedded platform: open, one merge of a new key, close.
func BenchmarkEmbeddedSet(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	c, err := embedded.Open(ctx, dir, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	c.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := embedded.Open(ctx, dir, client.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := c.Merge(ctx, client.EmbeddedOrg, "demo", resources.Patch{Set: map[string]string{fmt.Sprintf("K%d", i): "v"}}, ""); err != nil {
			b.Fatal(err)
		}
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
