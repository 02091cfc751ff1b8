// Package deploy measures `botkit deploy` against its peer, `docker run` of
// the same image with the same environment on the same engine and network
// (the agents' bridge network, which botkit's agents join), in the same
// run. bench/deploy.sh runs it and prints the ratios.
//
// Everything is real and private to the run: a Docker Engine (dockerd with
// its own roots and socket, no bridge, no iptables), a docker-registry with
// htpasswd holding the test agent image (a tiny static Go program, FROM
// scratch), and the botkit binary built from this checkout, on its embedded
// platform (DOCKER_HOST names the private engine).
//
// Two measures, each over ROUNDS rounds (default 5), alternating botkit and
// its peer so that a change of load hits both alike:
//   - one agent: `botkit deploy --skip` of a warm image (a new deployment,
//     rolled out: started, ready, settled, the previous one stopped) versus
//     `docker run -d --network` of the pinned image with the same environment, until
//     the engine reports it running. Goal: botkit within 1.5x the peer plus
//     the settle time (which a rollout waits by design, and docker run does
//     not).
//   - ten agents: a rollout of min_agents = 10 versus ten sequential
//     `docker run -d`, each until running. Goal: botkit faster (its agents
//     start in parallel). A rollout also waits the settle time once its
//     agents run, which ten bare runs do not: the ratio is printed against
//     that peer with the settle time taken off botkit's side, and against
//     the peer that gives the same guarantee — the ten runs, then the
//     settle time, then one `docker inspect` that finds all ten still
//     running (docs/performance.md, "Deploy").
package deploy

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
)

// keys is the environment both sides run the agent with: ten keys, the size
// of a voice bot's secret set.
var keys = func() []string {
	var kv []string
	for i := 1; i <= 10; i++ {
		kv = append(kv, fmt.Sprintf("BENCH_KEY_%02d=value-%02d-%s", i, i, strings.Repeat("x", 40)))
	}
	return kv
}()

type rig struct {
	b       *testing.B
	dir     string
	botkit  string
	env     []string
	docker  string // the engine's address for the docker CLI (-H)
	project string
	image   dockertest.Image
}

func BenchmarkDeploy(b *testing.B) {
	dockertest.Need(b)
	registrytest.Need(b)
	if _, err := exec.LookPath("docker"); err != nil {
		testenv.Missing(b, "the docker CLI is required (apt-get install -y docker.io)")
	}
	rounds := testenv.Rounds(b, 5)
	r := setUp(b)

	// The first deploy pulls the image (cold): not measured.
	r.writeDeployFile(1)
	r.botkitDeploy()

	var one, oneDocker []time.Duration
	for i := 0; i < rounds; i++ {
		one = append(one, r.botkitDeploy())
		oneDocker = append(oneDocker, r.dockerRuns(1, 0))
	}

	// Where a deploy's time goes beyond its rollout: a command on the
	// embedded platform that reconciles the agent (agents list), and the
	// checks a deploy runs first (preflight).
	var list, pre []time.Duration
	for i := 0; i < rounds; i++ {
		start := time.Now()
		r.run(nil, "cloud", "agents", "list")
		list = append(list, time.Since(start))
		start = time.Now()
		r.run(nil, "preflight", r.project)
		pre = append(pre, time.Since(start))
	}

	r.writeDeployFile(10)
	r.botkitDeploy() // from one agent to ten: not measured
	settle := runtime.DefaultSettle
	var ten, tenDocker, tenSettled []time.Duration
	for i := 0; i < rounds; i++ {
		ten = append(ten, r.botkitDeploy())
		tenDocker = append(tenDocker, r.dockerRuns(10, 0))
		tenSettled = append(tenSettled, r.dockerRuns(10, settle))
	}
	r.writeDeployFile(0)
	r.botkitDeploy()

	fmt.Printf("rounds: %d (alternating); settle time of a rollout: %s\n", rounds, settle)
	report("one agent: botkit deploy (warm image)", one)
	report("one agent: docker run -d, until running", oneDocker)
	m1, d1 := median(one), median(oneDocker)
	fmt.Printf("one agent: ratio (deploy - settle) / docker run: %.2fx (goal <= 1.5x); deploy / (1.5 x docker run + settle): %.2f (goal <= 1)\n",
		float64(m1-settle)/float64(d1), float64(m1)/(1.5*float64(d1)+float64(settle)))
	report("botkit cloud agents list (embedded platform, the agent reconciled)", list)
	report("botkit preflight (the checks deploy runs first)", pre)
	report("ten agents: botkit deploy rollout", ten)
	report("ten agents: 10 sequential docker run -d, each until running", tenDocker)
	m10, d10 := median(ten), median(tenDocker)
	report("ten agents: 10 sequential docker run -d, then the settle time and a look that finds them running", tenSettled)
	s10 := median(tenSettled)
	fmt.Printf("ten agents: ratio (deploy - settle) / sequential docker runs: %.2fx (goal < 1x); deploy / (runs + settle + look): %.2fx (goal < 1x); deploy / bare runs: %.2fx\n",
		float64(m10-settle)/float64(d10), float64(m10)/float64(s10), float64(m10)/float64(d10))
	b.ReportMetric(float64(m1)/1e6, "ms/deploy-1")
	b.ReportMetric(float64(d1)/1e6, "ms/docker-run-1")
	b.ReportMetric(float64(m10)/1e6, "ms/deploy-10")
	b.ReportMetric(float64(d10)/1e6, "ms/docker-run-10")
	b.ReportMetric(float64(s10)/1e6, "ms/docker-run-10-settled")
}

func setUp(b *testing.B) *rig {
	eng := dockertest.Start(b)
	dir := b.TempDir()
	const user = "bench"
	pass := "bench-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	host := registrytest.StartFor(b, filepath.Join(dir, "registry"), user, pass).Host()
	img := eng.PushAgent(b, host, "bench/agent:1", user, pass, dockertest.ImageOptions{})

	bin := filepath.Join(dir, "botkit")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/botkit")
	build.Dir = testenv.RepoRoot(b)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building botkit: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	r := &rig{b: b, dir: dir, botkit: bin, docker: eng.Host, image: img, project: filepath.Join(dir, "project")}
	r.env = append(os.Environ(),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"DOCKER_HOST="+eng.Host, "BOTKIT_TOKEN=", "BOTKIT_API_URL=", "NO_COLOR=1")
	r.run(nil, append([]string{"cloud", "secrets", "set", "bench-secrets"}, keys...)...)
	r.run(strings.NewReader(user+":"+pass), "cloud", "secrets", "image-pull-secret", "bench-creds", host, "--wait")
	if err := os.MkdirAll(filepath.Join(r.project, "server"), 0o755); err != nil {
		b.Fatal(err)
	}
	var example strings.Builder
	for _, kv := range keys {
		k, _, _ := strings.Cut(kv, "=")
		example.WriteString(k + "=\n")
	}
	if err := os.WriteFile(filepath.Join(r.project, "server", ".env.example"), []byte(example.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return r
}

func (r *rig) writeDeployFile(agents int) {
	toml := fmt.Sprintf(`agent_name = "bench"
image = %q
image_credentials = "bench-creds"
secret_set = "bench-secrets"

[scaling]
min_agents = %d
max_agents = %d
`, r.image.Ref, agents, max(agents, 1))
	if err := os.WriteFile(filepath.Join(r.project, "server", "cloud-deploy.toml"), []byte(toml), 0o644); err != nil {
		r.b.Fatal(err)
	}
}

// run runs botkit and fails the benchmark when it fails.
func (r *rig) run(stdin *strings.Reader, args ...string) []byte {
	cmd := exec.Command(r.botkit, args...)
	cmd.Env = r.env
	cmd.Dir = r.dir
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.b.Fatalf("botkit %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return out
}

// botkitDeploy times one `botkit deploy --skip` of the project: a new
// deployment, rolled out.
func (r *rig) botkitDeploy() time.Duration {
	start := time.Now()
	out := r.run(nil, "deploy", "--skip", r.project)
	d := time.Since(start)
	if !bytes.Contains(out, []byte("agent/bench deployed: deployment ")) {
		r.b.Fatalf("botkit deploy printed:\n%s", out)
	}
	return d
}

// dockerRuns times n sequential `docker run -d` of the pinned image with the
// same environment on the agents' network, each until the engine reports it running — then, when
// settle is not 0, waits settle and looks once that all n still run (what
// a rollout guarantees) —, then removes them (not timed).
func (r *rig) dockerRuns(n int, settle time.Duration) time.Duration {
	envFile := filepath.Join(r.dir, "bench.env")
	if err := os.WriteFile(envFile, []byte(strings.Join(keys, "\n")+"\n"), 0o600); err != nil {
		r.b.Fatal(err)
	}
	docker := func(args ...string) string {
		out, err := exec.Command("docker", append([]string{"-H", r.docker}, args...)...).CombinedOutput()
		if err != nil {
			r.b.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	var ids []string
	start := time.Now()
	for i := 0; i < n; i++ {
		id := docker("run", "-d", "--network", runtime.DefaultNetwork, "--env-file", envFile, r.image.Pinned())
		for docker("inspect", "-f", "{{.State.Running}}", id) != "true" {
			time.Sleep(10 * time.Millisecond)
		}
		ids = append(ids, id)
	}
	if settle > 0 {
		time.Sleep(settle)
		running := docker(append([]string{"inspect", "-f", "{{.State.Running}}"}, ids...)...)
		if strings.Count(running, "true") != n {
			r.b.Fatalf("after the settle time, docker inspect says: %s", running)
		}
	}
	d := time.Since(start)
	docker(append([]string{"rm", "-f"}, ids...)...)
	return d
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func report(what string, ds []time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	fmt.Printf("%s: min %s, median %s, max %s\n", what, s[0].Round(time.Millisecond), median(ds).Round(time.Millisecond), s[len(s)-1].Round(time.Millisecond))
}
