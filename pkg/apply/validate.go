package apply

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// validate checks what a document says, before its values are resolved:
// names, region, labels, keys, registry host. Each problem is at the line of
// its field.
func validate(doc *Document) []Problem {
	var ps []Problem
	meta := doc.Object.Meta()
	if doc.has("metadata.name") {
		if err := resources.ValidateName(meta.Name); err != nil {
			ps = append(ps, doc.problem("metadata.name", "%v", err))
		}
	}
	if meta.Organization != "" {
		if err := resources.ValidateName(meta.Organization); err != nil {
			ps = append(ps, doc.problem("metadata.organization", "%v", err))
		}
	}
	if meta.Region != "" {
		if err := resources.ValidateRegion(meta.Region); err != nil {
			ps = append(ps, doc.problem("metadata.region", "%v", err))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(meta.Labels)) {
		if doc.bad["metadata.labels."+k] {
			continue
		}
		if err := resources.ValidateLabelKey(k); err != nil {
			ps = append(ps, doc.problem("metadata.labels."+k, "%v", err))
		} else if err := resources.ValidateLabelValue(k, meta.Labels[k]); err != nil {
			ps = append(ps, doc.problem("metadata.labels."+k, "%v", err))
		}
	}
	if len(meta.Labels) > resources.MaxLabels {
		ps = append(ps, doc.problem("metadata.labels", "at most %d labels are allowed; got %d", resources.MaxLabels, len(meta.Labels)))
	}
	switch {
	case doc.Object.SecretSet != nil:
		data := doc.Object.SecretSet.Spec.Data
		for _, k := range slices.Sorted(maps.Keys(data)) {
			if err := resources.ValidateKey(k); err != nil {
				ps = append(ps, doc.problem("spec.data."+k, "%v", err))
			}
		}
		if len(data) > resources.MaxKeys {
			ps = append(ps, doc.problem("spec.data", "a secret set holds at most %d keys; this one has %d", resources.MaxKeys, len(data)))
		}
	case doc.Object.ImagePullSecret != nil && doc.has("spec.host"):
		if _, err := resources.NormalizeRegistryHost(doc.Object.ImagePullSecret.Spec.Host); err != nil {
			ps = append(ps, doc.problemAt("spec.host", err))
		}
	case doc.Object.Agent != nil && doc.has("spec.image"):
		ps = append(ps, validateAgent(doc)...)
	}
	return ps
}

// validateAgent checks an Agent's spec as the platform will
// (resources.ValidateAgentSpec), each problem at the line of its field.
// The checks stop at the first problem of the spec; fields that did not
// decode were reported already.
func validateAgent(doc *Document) []Problem {
	for _, f := range []string{"spec.image", "spec.imagePullSecret", "spec.secretSet", "spec.profile", "spec.scaling", "spec.scaling.minAgents", "spec.scaling.maxAgents"} {
		if doc.bad[f] {
			return nil
		}
	}
	err := resources.ValidateAgentSpec(doc.Object.Agent.Spec, runtime.ProfileNames())
	if err == nil {
		return nil
	}
	var fe *resources.FieldError
	if errors.As(err, &fe) {
		return []Problem{doc.problemAt(fe.Field, err)}
	}
	return []Problem{doc.problem("spec", "%v", err)}
}

// ResolveOptions say where value sources are read from.
type ResolveOptions struct {
	// LookupEnv reads an environment variable (os.LookupEnv when nil).
	LookupEnv func(string) (string, bool)
	// AllowPlaintext accepts literal values in manifests (SecretSet
	// spec.data, ImagePullSecret spec.credentials); without it they are
	// refused, since manifests live in git.
	AllowPlaintext bool
	// WorkDir is where fromFile paths of manifests read from stdin are
	// relative to (the current directory when empty).
	WorkDir string
}

// resolve replaces every value source of doc by the literal it names and
// checks the values against the platform's limits. Problems name the key
// and the source, never the value.
func resolve(ctx context.Context, doc *Document, opts ResolveOptions) []Problem {
	var ps []Problem
	one := func(path string, src resources.ValueSource) (string, bool) {
		switch {
		case src.IsLiteral():
			if !opts.AllowPlaintext {
				ps = append(ps, doc.problem(path, msgLiteral))
				return "", false
			}
			return *src.Literal, true
		case src.FromEnv != "":
			lookup := opts.LookupEnv
			if lookup == nil {
				lookup = os.LookupEnv
			}
			v, ok := lookup(src.FromEnv)
			if !ok {
				ps = append(ps, doc.problem(path, "environment variable %s is not set (fromEnv)", printable(src.FromEnv)))
				return "", false
			}
			return v, true
		case src.FromFile != "":
			v, err := readValueFile(ctx, doc.baseDir(opts.WorkDir), src.FromFile)
			if err != nil {
				ps = append(ps, doc.problem(path, "fromFile %s: %v", printable(src.FromFile), err))
				return "", false
			}
			return v, true
		}
		ps = append(ps, doc.problem(path, "an empty value source"))
		return "", false
	}
	switch {
	case doc.Object.SecretSet != nil:
		spec := &doc.Object.SecretSet.Spec
		total := 0
		for _, k := range slices.Sorted(maps.Keys(spec.Data)) {
			path := "spec.data." + k
			if spec.Data[k].Sealed != "" {
				continue // sent as it is: the platform opens it (and checks its size)
			}
			v, ok := one(path, spec.Data[k])
			if !ok {
				continue
			}
			if err := resources.ValidateValue(k, v); err != nil {
				// "spec.data.K: fromFile x.bin: value is not valid UTF-8"
				msg := err.Error()
				if ve, ok := errors.AsType[*resources.ValueError](err); ok {
					msg = ve.Problem
				}
				ps = append(ps, doc.problem(path, "%s%s", sourceOf(spec.Data[k]), msg))
				continue
			}
			total += resources.SetSize(k, len(v))
			spec.Data[k] = resources.Literal(v)
		}
		if len(ps) == 0 {
			if err := resources.ValidateSetTotals(len(spec.Data), total); err != nil {
				ps = append(ps, doc.problem("spec.data", "%v", err))
			}
		}
	case doc.Object.ImagePullSecret != nil:
		spec := &doc.Object.ImagePullSecret.Spec
		if spec.Credentials.Sealed != "" {
			ps = append(ps, doc.problem("spec.credentials", "sealed values are for secret set data; give the credentials with {fromEnv: VAR} or {fromFile: PATH}"))
			break
		}
		v, ok := one("spec.credentials", *spec.Credentials)
		if !ok {
			break
		}
		encoded := spec.Encode != nil && !*spec.Encode
		if _, _, err := resources.ParseCredentials(v, encoded); err != nil {
			ps = append(ps, doc.problemAt("spec.credentials", err))
			break
		}
		lit := resources.Literal(v)
		spec.Credentials = &lit
	}
	return ps
}

// msgLiteral is the problem of a literal value without --allow-plaintext.
const msgLiteral = "a literal value in a manifest (manifests live in git); use {sealed: VALUE} (botkit seal), {fromEnv: VAR} or {fromFile: PATH}, or pass --allow-plaintext"

// literalProblems are the literal values of a document that is not
// resolved (it has other problems), each at its line.
func literalProblems(doc *Document) []Problem {
	var ps []Problem
	switch {
	case doc.Object.SecretSet != nil:
		data := doc.Object.SecretSet.Spec.Data
		for _, k := range slices.Sorted(maps.Keys(data)) {
			if data[k].IsLiteral() {
				ps = append(ps, doc.problem("spec.data."+k, msgLiteral))
			}
		}
	case doc.Object.ImagePullSecret != nil:
		if c := doc.Object.ImagePullSecret.Spec.Credentials; c != nil && c.IsLiteral() {
			ps = append(ps, doc.problem("spec.credentials", msgLiteral))
		}
	}
	return ps
}

// sourceOf names where a value came from, for a problem with the value:
// "fromFile PATH: ", "fromEnv VAR: " or "" for a literal.
func sourceOf(src resources.ValueSource) string {
	switch {
	case src.FromFile != "":
		return "fromFile " + printable(src.FromFile) + ": "
	case src.FromEnv != "":
		return "fromEnv " + printable(src.FromEnv) + ": "
	}
	return ""
}

// baseDir is the directory fromFile paths of the document are relative to.
func (d *Document) baseDir(workDir string) string {
	if d.File == StdinName {
		return workDir
	}
	return filepath.Dir(d.File)
}

// fromFiles returns the paths the document's fromFile sources name.
func (d *Document) fromFiles(workDir string) []string {
	var srcs []resources.ValueSource
	switch {
	case d.Object.SecretSet != nil:
		for _, src := range d.Object.SecretSet.Spec.Data {
			srcs = append(srcs, src)
		}
	case d.Object.ImagePullSecret != nil && d.Object.ImagePullSecret.Spec.Credentials != nil:
		srcs = append(srcs, *d.Object.ImagePullSecret.Spec.Credentials)
	}
	var out []string
	for _, src := range srcs {
		if src.FromFile != "" {
			out = append(out, valuePath(d.baseDir(workDir), src.FromFile))
		}
	}
	return out
}

func valuePath(dir, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}

// readValueFile reads a fromFile value, at most the value limit (a larger
// file is refused without reading it all). Errors name the file, never its
// content.
func readValueFile(ctx context.Context, dir, name string) (string, error) {
	data, err := ctxio.ReadFile(ctx, valuePath(dir, name), resources.MaxValueBytes)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return "", pe.Err
		}
		return "", err
	}
	if len(data) > resources.MaxValueBytes {
		return "", fmt.Errorf("larger than the %d bytes (64 KiB) a value may hold", resources.MaxValueBytes)
	}
	return string(data), nil
}
