package secrets

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// ImagePullSecretOptions are the inputs of `botkit cloud secrets image-pull-secret`.
type ImagePullSecretOptions struct {
	PlatformOptions
	Name        string
	Host        string
	Credentials string // the CREDENTIALS argument ("" = not given)
	HasCreds    bool   // the argument was given (it may be empty)
	Encode      bool   // --encode (default true); false: Credentials is base64
	// DockerConfig is --from-docker-config: the config.json path ("" = not
	// given). HomeDir resolves its default.
	DockerConfig string
	HomeDir      func() (string, error)
	Region       string
	Wait         bool
	Print        *printers.Flags
}

// maxDockerConfigBytes bounds the Docker config file read.
const maxDockerConfigBytes = 4 << 20

// dockerConfigDefault is the NoOptDefVal of --from-docker-config, replaced
// by ~/.docker/config.json.
const dockerConfigDefault = "~/.docker/config.json"

// NewCmdImagePullSecret returns `botkit cloud secrets image-pull-secret`.
func NewCmdImagePullSecret(f *cloudutil.Factory, runF func(context.Context, *ImagePullSecretOptions) error) *cobra.Command {
	opts := &ImagePullSecretOptions{PlatformOptions: newPlatformOptions(f), Print: newPrintFlags(f.Factory), HomeDir: os.UserHomeDir}
	cmd := &cobra.Command{
		Use:     "image-pull-secret NAME HOST [CREDENTIALS]",
		Aliases: []string{"ips"},
		Short:   "Create an image pull secret or update its credentials",
		Long: `Create the image pull secret NAME for the registry HOST (a URL or host[:port]),
or update its host and credentials in place.

CREDENTIALS are "username:password". Without them botkit prompts for the
username and a hidden password on a terminal, or reads one line
"username:password" from stdin otherwise. --from-docker-config takes them from
the "auths" entry for HOST of a Docker config.json (default
~/.docker/config.json), as "docker login" stored them;
"--from-docker-config PATH" after NAME HOST reads PATH when it is a file.

--encode=false (or --no-encode) takes CREDENTIALS already base64-encoded and
checks they decode to "username:password".

The platform checks the credentials against the registry: --wait waits for
the verdict and exits 1 when the registry refused them. The same host and
credentials again change nothing: "imagepullsecret/NAME unchanged", no new
version.`,
		Example: `  botkit cloud secrets image-pull-secret ghcr-creds ghcr.io
  echo "$GHCR_USER:$GHCR_TOKEN" | botkit cloud secrets image-pull-secret ghcr-creds https://ghcr.io --wait
  botkit cloud secrets image-pull-secret hub index.docker.io --from-docker-config
  botkit cloud secrets image-pull-secret ghcr-creds ghcr.io "$(base64 <creds.txt)" --no-encode`,
		Args:              cmdutil.RangeArgs(2, 3, "NAME HOST [CREDENTIALS]"),
		ValidArgsFunction: completeNames(&opts.PlatformOptions, func() string { return resources.KindImagePullSecret }, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name, opts.Host = args[0], args[1]
			if len(args) == 3 {
				opts.Credentials, opts.HasCreds = args[2], true
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runImagePullSecret(cmd.Context(), opts)
		},
	}
	cmdutil.BoolPair(cmd.Flags(), &opts.Encode, "encode", "", true, "Base64-encode the credentials; --encode=false takes them already encoded")
	cmd.Flags().StringVar(&opts.DockerConfig, "from-docker-config", "", "Take the credentials for HOST from a Docker config.json (default path ~/.docker/config.json)")
	cmd.Flags().Lookup("from-docker-config").NoOptDefVal = dockerConfigDefault
	cmd.Flags().StringVarP(&opts.Region, "region", "r", "", "Region of a new image pull secret (default: the organization's default region)")
	cmd.Flags().BoolVar(&opts.Wait, "wait", false, "Wait until the registry check is done (failed exits 1)")
	addOrganizationFlag(cmd, &opts.PlatformOptions)
	opts.Print.AddFlags(cmd)
	registerFlagCompletions(cmd, &opts.PlatformOptions)
	return cmd
}

func runImagePullSecret(ctx context.Context, opts *ImagePullSecretOptions) error {
	if err := validateNameRegion(opts.Name, opts.Region); err != nil {
		return err
	}
	host, err := resources.NormalizeRegistryHost(opts.Host)
	if err != nil {
		return &cmdutil.ArgsError{Err: fmt.Errorf("HOST: %w", err)}
	}
	p, err := opts.Print.ToPrinter()
	if err != nil {
		return err
	}
	creds, encoded, err := ipsCredentials(ctx, opts, host)
	if err != nil {
		return err
	}
	// Check locally first: the error never echoes the credentials.
	if _, _, err := resources.ParseCredentials(creds, encoded); err != nil {
		what := "CREDENTIALS"
		if opts.DockerConfig != "" {
			what = "--from-docker-config"
		}
		msg := err.Error()
		if fe, ok := errors.AsType[*resources.FieldError](err); ok {
			msg = fe.Problem
		}
		return cmdutil.UsageErrorf("%s: %s", what, msg)
	}
	c, org, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	encode := !encoded
	patch := resources.Patch{Kind: resources.KindImagePullSecret, Region: opts.Region, Host: host, Credentials: &creds, Encode: &encode}
	ifMatch := ""
	t, err := opts.CurrentTarget()
	if err != nil {
		return err
	}
	cur, exists, err := getIfExists(ctx, c, org, opts.Name)
	if err != nil {
		return err
	}
	// In a protected context that --context did not name, replacing the
	// host and credentials of an existing one goes through the protection
	// check, and the write is conditional on what was checked.
	switch {
	case !exists:
		if opts.Region == "" {
			// The configured default region applies to a new object only.
			if patch.Region, err = opts.newRegion(""); err != nil {
				return err
			}
		}
		ifMatch = client.IfAbsent
	case t.Protected && !t.Explicit:
		what := "replace the host and credentials of " + ref(resources.KindImagePullSecret, opts.Name)
		if err := cloudutil.Protect(ctx, opts.IO, opts.Prompter, t, cloudutil.Guarded{Org: org, What: what}); err != nil {
			return err
		}
		ifMatch = cur.Meta().ResourceVersion
	}
	obj, created, err := c.Merge(ctx, org, opts.Name, patch, ifMatch)
	if err != nil {
		return err
	}
	// The same host and credentials leave the object as it was: no new
	// resourceVersion, no new version.
	unchanged := exists && !created && obj.Meta().ResourceVersion == cur.Meta().ResourceVersion
	obj, done, err := opts.written(ctx, c, org, obj, opts.Wait, p, !opts.Print.Lines())
	if done || err != nil {
		return err
	}
	if unchanged {
		return printers.PrintOperations(opts.IO.Out, printers.Operation{Ref: objRef(obj), Action: resources.ActionUnchanged})
	}
	verb := resources.ActionConfigured
	if created {
		verb = resources.ActionCreated
	}
	user := ""
	if obj.ImagePullSecret != nil {
		user = obj.ImagePullSecret.Spec.Username
	}
	err = printers.PrintOperations(opts.IO.Out, printers.Operation{Ref: objRef(obj), Action: verb, Detail: "host " + host + ", username " + user, Version: obj.Meta().Generation})
	return err
}

// ipsCredentials returns the credentials from exactly one source and
// whether they are base64-encoded.
func ipsCredentials(ctx context.Context, opts *ImagePullSecretOptions, host string) (string, bool, error) {
	if opts.DockerConfig != "" {
		if opts.HasCreds && opts.DockerConfig == dockerConfigDefault && isFile(opts.Credentials) {
			// "--from-docker-config PATH", with a space as every other
			// path flag is written: the flag's value is optional, so PATH
			// came as CREDENTIALS. Credentials never name an existing file.
			opts.DockerConfig, opts.Credentials, opts.HasCreds = opts.Credentials, "", false
		}
		if opts.HasCreds {
			return "", false, &cmdutil.ArgsError{Err: errors.New("give CREDENTIALS or --from-docker-config, not both (name a config file with --from-docker-config=PATH, or --from-docker-config PATH after NAME HOST)")}
		}
		if !opts.Encode {
			return "", false, cmdutil.FlagErrorf("--encode=false applies to CREDENTIALS; --from-docker-config reads encoded credentials already")
		}
		auth, err := dockerConfigAuth(ctx, opts, host)
		return auth, true, err
	}
	if opts.HasCreds {
		return opts.Credentials, !opts.Encode, nil
	}
	if opts.IO.CanAskSecret() {
		if !opts.Encode {
			return "", false, cmdutil.FlagErrorf("--encode=false needs encoded CREDENTIALS; prompted ones are plain")
		}
		pr := opts.Prompter().WithContext(ctx)
		user, err := pr.Input("Username for "+host, "CREDENTIALS", "", func(s string) error {
			if s == "" || strings.ContainsAny(s, ":\r\n") {
				return errors.New("a username is not empty and has no ':'")
			}
			return nil
		})
		if err != nil {
			return "", false, err
		}
		pass, err := pr.Password("Password or token", "CREDENTIALS")
		if err != nil {
			return "", false, err
		}
		return user + ":" + pass, false, nil
	}
	line, err := readLine(ctx, opts.IO.In)
	if err != nil {
		return "", false, err
	}
	if line == "" {
		return "", false, &cmdutil.ArgsError{Err: errors.New("no credentials: give CREDENTIALS (username:password), --from-docker-config, or one line username:password on stdin")}
	}
	return line, !opts.Encode, nil
}

// isFile reports whether p names an existing file (not a directory).
func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// readLine reads the first line of r (without its line ending), giving up
// when ctx ends.
func readLine(ctx context.Context, r io.Reader) (string, error) {
	s, err := ctxio.Do(ctx, func() (string, error) {
		br := bufio.NewReaderSize(io.LimitReader(r, 16<<10), 16<<10)
		s, err := br.ReadString('\n')
		if err == io.EOF {
			err = nil
		}
		return strings.TrimRight(s, "\r\n"), err
	})
	switch {
	case err != nil && ctx.Err() != nil:
		return "", err // interrupted
	case err != nil:
		return "", fmt.Errorf("stdin: read: %w", err)
	}
	return s, nil
}

// dockerConfig is the part of Docker's config.json botkit reads.
type dockerConfig struct {
	Auths       map[string]dockerAuth `json:"auths"`
	CredsStore  string                `json:"credsStore"`
	CredHelpers map[string]string     `json:"credHelpers"`
}

type dockerAuth struct {
	Auth string `json:"auth"`
}

// dockerConfigAuth returns the base64 "user:pass" stored for host in the
// Docker config file. Errors name the file and the host, never a value.
func dockerConfigAuth(ctx context.Context, opts *ImagePullSecretOptions, host string) (string, error) {
	path := opts.DockerConfig
	if path == dockerConfigDefault {
		home, err := opts.HomeDir()
		if err != nil {
			return "", cmdutil.FlagErrorf("--from-docker-config: no home directory to find ~/.docker/config.json in (%v); give the path", err)
		}
		path = filepath.Join(home, ".docker", "config.json")
	}
	b, err := ctxio.ReadFile(ctx, path, maxDockerConfigBytes)
	if err != nil && ctx.Err() != nil {
		return "", err // interrupted
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", cmdutil.FlagErrorf("--from-docker-config: %s: %v", path, err)
	}
	if len(b) > maxDockerConfigBytes {
		return "", cmdutil.FlagErrorf("--from-docker-config: %s is larger than %d MiB", path, maxDockerConfigBytes>>20)
	}
	var cfg dockerConfig
	if err := json.Unmarshal(b, &cfg); err != nil {
		// json's messages may quote a character of the file: say where only.
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + strings.Count(string(b[:min(int(se.Offset), len(b))]), "\n")
			return "", cmdutil.FlagErrorf("--from-docker-config: %s:%d: not valid JSON", path, line)
		}
		return "", cmdutil.FlagErrorf("--from-docker-config: %s: not a Docker config file (auths must map registries to {\"auth\": \"...\"})", path)
	}
	want := registryKey(host)
	var found []string
	for k, a := range cfg.Auths {
		found = append(found, k)
		if registryKey(k) == want && a.Auth != "" {
			if err := checkDockerAuth(a.Auth); err != nil {
				return "", cmdutil.FlagErrorf("--from-docker-config: %s: the \"auth\" of auths entry %q %v", path, printableKey(k), err)
			}
			return a.Auth, nil
		}
	}
	if helper := cfg.CredHelpers[hostPort(host)]; helper != "" {
		return "", cmdutil.FlagErrorf("--from-docker-config: %s keeps the credentials for %s in the credential helper docker-credential-%s, not in the file; pass them as CREDENTIALS or on stdin", path, hostPort(host), helper)
	}
	if cfg.CredsStore != "" {
		return "", cmdutil.FlagErrorf("--from-docker-config: %s has no credentials for %s in auths (it uses the credential store docker-credential-%s); pass them as CREDENTIALS or on stdin", path, hostPort(host), cfg.CredsStore)
	}
	slices.Sort(found)
	has := "none"
	if len(found) > 0 {
		has = strings.Join(found, ", ")
	}
	return "", cmdutil.FlagErrorf("--from-docker-config: %s has no credentials for %s (auths has: %s); run docker login %s first", path, hostPort(host), has, hostPort(host))
}

// checkDockerAuth checks the "auth" of a config.json entry: base64 of
// username:password, as docker login writes it. The error describes the
// problem without the value.
func checkDockerAuth(auth string) error {
	if _, err := base64.StdEncoding.DecodeString(strings.TrimSpace(auth)); err != nil {
		return errors.New("is not valid base64 (docker login stores base64 of username:password)")
	}
	if _, _, err := resources.ParseCredentials(auth, true); err != nil {
		problem := err.Error()
		if fe, ok := errors.AsType[*resources.FieldError](err); ok {
			problem = fe.Problem
		}
		return fmt.Errorf("does not decode to username:password: %s", problem)
	}
	return nil
}

// printableKey shortens a config.json key for a message.
func printableKey(k string) string {
	if len(k) > 128 {
		k = k[:128] + "..."
	}
	return strings.ToValidUTF8(k, "?")
}

// hostPort returns the host[:port] of a normalized registry address.
func hostPort(addr string) string {
	if u, err := url.Parse(addr); err == nil && u.Host != "" {
		return u.Host
	}
	return addr
}

// registryKey reduces the forms a registry is named by in config.json —
// "ghcr.io", "https://ghcr.io", "https://index.docker.io/v1/" — to one
// comparable host[:port]; Docker Hub's names all become docker.io.
func registryKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s = s[:i]
	}
	switch s {
	case "index.docker.io", "registry-1.docker.io", "registry.hub.docker.com":
		return "docker.io"
	}
	return s
}
