package redact

import (
	"strings"
	"testing"
)

func TestLocation(t *testing.T) {
	for in, want := range map[string]string{
		"https://botkit.example.com":                     "https://botkit.example.com",
		"https://botkit.example.com/api/":                "https://botkit.example.com/api/",
		"http://u:PASSWORD%zz@host":                      "http://REDACTED@host",
		"http://u:PASSWORD@host:8787/x?y=1":              "http://REDACTED@host:8787/x?REDACTED",
		"https://host/?token=TOKEN123":                   "https://host/?REDACTED",
		"https://host?token=TOKEN123":                    "https://host?REDACTED",
		"https://TOKEN123@host":                          "https://REDACTED@host",
		"https://host#TOKEN123":                          "https://host?REDACTED",
		"postgres://bot:PW@db:5432/platform?sslmode=off": "postgres://REDACTED@db:5432/platform?REDACTED",
		"host=db user=bot password=PW dbname=platform":   "host=db user=bot password=REDACTED dbname=platform",
		"host=db password='P W\\' x' dbname=platform":    "host=db password=REDACTED dbname=platform",
		"host=db PASSWORD = PW sslpassword=PW2":          "host=db PASSWORD=REDACTED sslpassword=REDACTED",
		"not a url at all":                               "not a url at all",
		"mysql://x":                                      "mysql://x",
	} {
		if got := Location(in); got != want {
			t.Errorf("Location(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Location(strings.Repeat("a", 300)); len(got) != 203 {
		t.Errorf("a long string is cut to 200 characters: got %d", len(got))
	}
}

// No password or token survives, whatever the form it comes in.
func FuzzLocation(f *testing.F) {
	f.Add("http", "u", "PASSWORD%zz", "host", "x=1")
	f.Add("postgres", "bot", "s3cr3t!", "db:5432", "sslmode=disable&password=s3cr3t!")
	f.Add("https", "", "tok_abcdef", "h", "token=tok_abcdef")
	f.Fuzz(func(t *testing.T, scheme, user, secret, host, query string) {
		if len(secret) < 6 || strings.ContainsAny(secret, "@/?#") || strings.Contains(scheme+user+host, secret) ||
			strings.ContainsAny(host, "@") || strings.Contains(Mask, secret) || strings.Contains("://", secret) {
			t.Skip()
		}
		for _, raw := range []string{
			scheme + "://" + user + ":" + secret + "@" + host,
			scheme + "://" + secret + "@" + host + "/p",
			scheme + "://" + host + "/p?" + query + "&token=" + secret,
			scheme + "://" + host + "?" + secret,
			"host=" + strings.ReplaceAll(host, " ", "") + " password=" + strings.ReplaceAll(secret, " ", "") + " dbname=x",
		} {
			if got := Location(raw); strings.Contains(got, strings.ReplaceAll(secret, " ", "")) && !strings.Contains(raw[:strings.Index(raw, secret)], "\n") {
				t.Fatalf("Location(%q) = %q keeps the secret", raw, got)
			}
		}
	})
}
