package client_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/tlstest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/platform"
)

// tlsPlatform serves the real platform over HTTPS on 127.0.0.1 with a
// certificate for hosts signed by a fresh CA; it returns the URL, a token
// of "acme" and the CA's certificate file.
func tlsPlatform(t *testing.T, hosts ...string) (url, token, caFile string) {
	t.Helper()
	dir := t.TempDir()
	ca, err := tlstest.NewCA("platform CA")
	if err != nil {
		t.Fatal(err)
	}
	caFile = filepath.Join(dir, "ca.pem")
	if err := ca.WriteCert(caFile); err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(1, hosts...)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := leaf.Write(certFile, keyFile); err != nil {
		t.Fatal(err)
	}
	url, srv := platformtest.StartTLS(t, platform.Options{DisableProvisioner: true}, certFile, keyFile)
	platformtest.CreateOrg(t, srv, "acme", "")
	return url, platformtest.CreateToken(t, srv, "acme", "ci"), caFile
}

// https to a platform whose certificate a private CA signs: trusted with
// the CA file; without it, or with another CA, a *CertificateError (exit 1)
// that names the CA file in use, or says none was given and how to give
// one; the token never in the message.
func TestPrivateCA(t *testing.T) {
	ctx := context.Background()
	url, token, caFile := tlsPlatform(t, "127.0.0.1")
	other, err := tlstest.NewCA("another CA")
	if err != nil {
		t.Fatal(err)
	}
	otherFile := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := other.WriteCert(otherFile); err != nil {
		t.Fatal(err)
	}

	c, err := client.New(client.Options{BaseURL: url, Token: token, CA: client.CAFile{Path: caFile, From: "--certificate-authority"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if me, err := c.Me(ctx); err != nil || me.User != "ci" {
		t.Fatalf("with the CA: %+v %v", me, err)
	}

	for _, tc := range []struct {
		ca   client.CAFile
		want string
	}{
		{client.CAFile{}, "presents a TLS certificate signed by an authority botkit does not trust: no CA file was given, so only the system's CAs are trusted; HINT"},
		{client.CAFile{Path: otherFile, From: "BOTKIT_CA_FILE"}, "presents a TLS certificate signed neither by the CA in " + otherFile + " (from BOTKIT_CA_FILE) nor by one of the system's CAs"},
	} {
		c, err := client.New(client.Options{BaseURL: url, Token: token, CA: tc.ca, CAHint: "HINT"})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, err = c.Me(ctx)
		var ce *client.CertificateError
		if !errors.As(err, &ce) || cmdutil.ExitCode(err) != cmdutil.ExitError || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CA %q: %v (exit %d), want a certificate error (exit 1) saying %q", tc.ca.Path, err, cmdutil.ExitCode(err), tc.want)
		}
		if err != nil && strings.Contains(err.Error(), token) {
			t.Error("the error shows the token")
		}
	}
}

// A certificate for another name is refused, saying so.
func TestCertificateForAnotherName(t *testing.T) {
	url, token, caFile := tlsPlatform(t, "platform.example")
	c, err := client.New(client.Options{BaseURL: url, Token: token, CA: client.CAFile{Path: caFile}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Me(context.Background())
	var ce *client.CertificateError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "presents a TLS certificate botkit does not accept: it is for platform.example, not 127.0.0.1") {
		t.Errorf("%v, want a certificate error naming the certificate's name", err)
	}
}

// A CA file that cannot be used is invalid input (exit 2) naming the file
// and where it came from; nothing is sent.
func TestCAFileInvalid(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.pem")
	if err := os.WriteFile(empty, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	for _, tc := range []struct{ path, want string }{
		{missing, "CA file " + missing + " (from BOTKIT_CA_FILE): no such file or directory"},
		{empty, "CA file " + empty + " (from BOTKIT_CA_FILE): no PEM CERTIFICATE block in it"},
		{garbage, "CA file " + garbage + " (from BOTKIT_CA_FILE): certificate 1: "},
	} {
		_, err := client.New(client.Options{BaseURL: "https://platform.example", Token: "bkp_x", CA: client.CAFile{Path: tc.path, From: "BOTKIT_CA_FILE"}})
		var fe *client.CAFileError
		if !errors.As(err, &fe) || cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want exit 2 saying %q", filepath.Base(tc.path), err, tc.want)
		}
	}
}
