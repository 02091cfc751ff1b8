// Command seal-manifests writes the manifests of bench/apply.sh's sealed
// run: N secret sets "bench-00001".. with keys K1, K2, K3, each value sealed
// (strict scope: its organization, set and key) to the certificate that
// `botkit seal --fetch-cert` printed. It is `botkit seal NAME -f FILE` for N
// sets in one process, so the bench does not time N process starts.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/botkit-dev/botkit/pkg/sealed"
)

func main() {
	cert := flag.String("cert", "", "the certificate (botkit seal --fetch-cert)")
	n := flag.Int("n", 1000, "how many sets")
	flag.Parse()
	if err := run(*cert, *n); err != nil {
		fmt.Fprintln(os.Stderr, "seal-manifests:", err)
		os.Exit(1)
	}
}

func run(certFile string, n int) error {
	data, err := os.ReadFile(certFile)
	if err != nil {
		return err
	}
	c, r, err := sealed.ParseCert(data)
	if err != nil {
		return fmt.Errorf("%s: %w", certFile, err)
	}
	w := bufio.NewWriter(os.Stdout)
	values := map[string]string{"K1": "value-one", "K2": "value-two", "K3": "value-three"}
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("bench-%05d", i)
		fmt.Fprintf(w, "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata:\n  name: %s\n  labels: {team: bench}\nspec:\n  data:\n", name)
		for _, k := range []string{"K1", "K2", "K3"} {
			s, err := sealed.Seal(r, sealed.Binding{Scope: sealed.ScopeStrict, Organization: c.Organization, Set: name, Key: k}, values[k])
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "    %s: {sealed: %q}\n", k, s)
		}
		fmt.Fprintln(w, "---")
	}
	return w.Flush()
}
