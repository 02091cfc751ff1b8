package pyindex

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// pkg builds an index of a made-up package "pkg" from its files.
func pkg(t *testing.T, files map[string]string) *Index {
	t.Helper()
	in := map[string][]byte{"pyproject.toml": []byte(`[project]
name = "pkg-dist"
requires-python = ">=3.11"
[project.optional-dependencies]
zeta = ["z"]
alpha = []
`)}
	for p, s := range files {
		in["src/pkg/"+p] = []byte(s)
	}
	ix, err := Build(in, "1.0.0", Source{Tag: "v1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

const servicePy = `"""Services."""

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Generic

from pydantic import BaseModel

from pkg.base import Base as RenamedBase
from . import helpers
from .helpers import (
    helper,
    other as renamed,
)

try:
    import optional_dep
except ImportError:
    optional_dep = None

if TYPE_CHECKING:
    from pkg.hidden import Hidden

__all__ = ["Service", "Settings"]

A, (B, C) = 1, (2, 3)
D: int = 4
E = F = 5


@dataclass(frozen=True)
class Settings:
    """Settings.

    Parameters:
        model: The model.
        voice: The voice.

            .. deprecated:: 1.2.0
                Use ` + "`model`" + `.
    """

    model: str = "m"
    voice: str | None = None
    _private: int = 0
    KIND: ClassVar[str] = "k"


class Params(BaseModel):
    rate: int = 16000


class Service(RenamedBase, Generic[T], metaclass=Meta):
    Settings = Settings

    class InputParams(BaseModel):
        language: str = "en"

    def method(self, x):
        pass

    def __init__(self, api_key: str, /, *, url: str = "ws://x)", settings: Settings | None = None, **kwargs):
        """Init.

        Args:
            api_key: The key.
            url: The URL.

                .. deprecated:: 1.1.0
                    Use settings.
            settings: The settings.
        """
        super().__init__(name="s", **kwargs)


class Keeper:
    def __init__(self, **options):
        self._options = options


class Dropper:
    def __init__(self, *, a, **kwargs):
        self.a = a


@deprecated("` + "`Old`" + ` is deprecated since 1.0.0.")
class Old(Service):
    pass


def make(a, b=1, *args, c, **kw):
    return helper(**kw)


async def run(x, y):
    pass
`

func TestBuildReadsModules(t *testing.T) {
	ix := pkg(t, map[string]string{
		"__init__.py": "from pkg.service import *\n",
		"base.py": `class Base:
    def __init__(self, *, name=None, **kwargs):
        pass
`,
		"helpers.py": "def helper(**kw): pass\nother = 1\n_hidden = 2\n",
		"service.py": servicePy,
		"old.py": `"""Old things.

.. deprecated:: 0.9.0
    Use :mod:` + "`pkg.service`" + `.
"""
from pkg.service import Service
`,
		"warned.py":        "import warnings\nwarnings.warn(\"pkg.warned is deprecated\", DeprecationWarning, stacklevel=2)\n",
		"lazy/__init__.py": "__all__ = [\"Late\"]\n\ndef __getattr__(name):\n    pass\n",
	})
	if ix.Package != "pkg-dist" || ix.RequiresPython != ">=3.11" || !slices.Equal(ix.Extras, []string{"alpha", "zeta"}) {
		t.Errorf("package %q, python %q, extras %v", ix.Package, ix.RequiresPython, ix.Extras)
	}
	if got := slices.Sorted(maps.Keys(ix.Modules)); !slices.Equal(got, []string{"pkg", "pkg.base", "pkg.helpers", "pkg.lazy", "pkg.old", "pkg.service", "pkg.warned"}) {
		t.Fatalf("modules %v", got)
	}
	svc := ix.Modules["pkg.service"]
	wantNames := "A B BaseModel C ClassVar D Dropper E F Generic Keeper Old Params RenamedBase Service Settings TYPE_CHECKING __all__ dataclass field helper helpers make optional_dep renamed run warnings"
	if got := strings.Join(svc.Names, " "); got != wantNames {
		t.Errorf("names\n got %s\nwant %s", got, wantNames)
	}
	if !slices.Equal(svc.All, []string{"Service", "Settings"}) {
		t.Errorf("__all__ = %v", svc.All)
	}
	for local, q := range map[string]string{"RenamedBase": "pkg.base.Base", "helpers": "pkg.helpers", "renamed": "pkg.helpers.other", "BaseModel": "pydantic.BaseModel"} {
		if svc.Imports[local] != q {
			t.Errorf("imports[%s] = %q, want %q", local, svc.Imports[local], q)
		}
	}
	if _, ok := svc.Imports["warnings"]; ok {
		t.Error("an outside import no base uses is kept")
	}
	settings := svc.Classes["Settings"]
	if !settings.Dataclass || !slices.Equal(settings.Fields, []string{"model", "voice"}) || !slices.Equal(settings.DeprecatedParams, []string{"voice"}) {
		t.Errorf("Settings = %+v", settings)
	}
	s := svc.Classes["Service"]
	if !slices.Equal(s.Bases, []string{"RenamedBase", "Generic[T]"}) || s.Aliases["Settings"] != "Settings" {
		t.Errorf("Service bases %v aliases %v", s.Bases, s.Aliases)
	}
	if s.Init == nil || !slices.Equal(s.Init.Params, []string{"url", "settings"}) || !slices.Equal(s.Init.PositionalOnly, []string{"api_key"}) ||
		!slices.Equal(s.Init.KeywordOnly, []string{"url", "settings"}) || s.Init.VarKwargs != KwargsPassedToBase {
		t.Errorf("Service.__init__ = %+v", s.Init)
	}
	if !slices.Equal(s.DeprecatedParams, []string{"url"}) {
		t.Errorf("Service deprecated params %v", s.DeprecatedParams)
	}
	if ip := svc.Classes["Service.InputParams"]; ip == nil || !slices.Equal(ip.Fields, []string{"language"}) {
		t.Errorf("nested class: %+v", ip)
	}
	if k := svc.Classes["Keeper"].Init.VarKwargs; k != KwargsUsed {
		t.Errorf("Keeper kwargs %q", k)
	}
	if k := svc.Classes["Dropper"].Init.VarKwargs; k != KwargsUnused {
		t.Errorf("Dropper kwargs %q", k)
	}
	if d := svc.Classes["Old"].Deprecated; d != "`Old` is deprecated since 1.0.0." {
		t.Errorf("Old deprecated %q", d)
	}
	mk := svc.Functions["make"]
	if mk == nil || !slices.Equal(mk.Params, []string{"a", "b", "c"}) || !mk.VarArgs || mk.VarKwargs != KwargsUsed || !slices.Equal(mk.KeywordOnly, []string{"c"}) {
		t.Errorf("make = %+v", mk)
	}
	if svc.Functions["run"] == nil {
		t.Error("async def not read")
	}
	if d := ix.Modules["pkg.old"].Deprecated; !strings.HasPrefix(d, "deprecated since 0.9.0. Use") {
		t.Errorf("pkg.old deprecated %q", d)
	}
	if d := ix.Modules["pkg.warned"].Deprecated; d != "pkg.warned is deprecated" {
		t.Errorf("pkg.warned deprecated %q", d)
	}
	if d := svc.Deprecated; d != "" {
		t.Errorf("pkg.service deprecated %q", d)
	}
	// The star import binds the module's __all__.
	if root := ix.Modules["pkg"]; !slices.Equal(root.Names, []string{"Service", "Settings"}) || root.Imports["Service"] != "pkg.service.Service" {
		t.Errorf("pkg: %+v", root)
	}
	if !ix.Modules["pkg.lazy"].Lazy {
		t.Error("pkg.lazy is not lazy")
	}
}

func TestLookups(t *testing.T) {
	ix := pkg(t, map[string]string{
		"__init__.py": "",
		"base.py": `class Base:
    def __init__(self, *, name=None, **kwargs):
        pass
`,
		"helpers.py":       "def helper(**kw): pass\nother = 1\n",
		"service.py":       servicePy,
		"reexport.py":      "from pkg.service import Service as Svc, Settings\n",
		"lazy/__init__.py": "__all__ = [\"Late\"]\n\ndef __getattr__(name):\n    pass\n",
		"lazy/late.py":     "",
	})
	if !ix.HasModule("pkg.lazy") || !ix.HasModule("pkg") || ix.HasModule("pkg.nosuch") || ix.TopLevel() != "pkg" {
		t.Error("HasModule")
	}
	for _, c := range []struct {
		module, name string
		want         bool
	}{
		{"pkg.service", "Service", true}, {"pkg.service", "optional_dep", true}, {"pkg.service", "Hidden", false},
		{"pkg.lazy", "Late", true}, {"pkg.lazy", "late", true}, {"pkg.lazy", "Other", false}, {"pkg.reexport", "Svc", true},
	} {
		if got := ix.Binds(c.module, c.name); got != c.want {
			t.Errorf("Binds(%s, %s) = %v", c.module, c.name, got)
		}
	}
	if !ix.HasExtra("zeta") || ix.HasExtra("beta") {
		t.Error("HasExtra")
	}
	keywords := func(module, name string) (string, Verdict) {
		kw, v := ix.Keywords(module, name)
		return strings.Join(slices.Sorted(maps.Keys(kw)), " "), v
	}
	for _, c := range []struct {
		module, name, want string
		verdict            Verdict
	}{
		// Own parameters (not the positional-only one) and the base's,
		// through an import under another name.
		{"pkg.service", "Service", "name settings url", Exact},
		{"pkg.reexport", "Svc", "name settings url", Exact},
		{"pkg.service", "Old", "name settings url", Exact},
		{"pkg.service", "Settings", "model voice", Exact},
		{"pkg.service", "Params", "rate", Exact},
		{"pkg.service", "Service.InputParams", "language", Exact},
		{"pkg.service", "Service.Settings", "model voice", Exact},
		{"pkg.reexport", "Svc.Settings", "model voice", Exact},
		{"pkg.service", "Keeper", "", Open},
		{"pkg.service", "Dropper", "a", Exact},
		{"pkg.service", "make", "a b c", Open},
		{"pkg.service", "run", "x y", Exact},
	} {
		got, v := keywords(c.module, c.name)
		if got != c.want || v != c.verdict {
			t.Errorf("Keywords(%s, %s) = %q, %d; want %q, %d", c.module, c.name, got, v, c.want, c.verdict)
		}
	}
	if _, v := ix.Keywords("pkg.service", "Nosuch"); v != Unknown {
		t.Errorf("Keywords of an unknown name: %d", v)
	}
	if d := ix.Deprecation("pkg.service", "Old"); !strings.Contains(d, "`Old` is deprecated") {
		t.Errorf("Deprecation(Old) = %q", d)
	}
	if d := ix.Deprecation("pkg.service", "Service"); d != "" {
		t.Errorf("Deprecation(Service) = %q", d)
	}
	if got := slices.Sorted(maps.Keys(ix.DeprecatedParams("pkg.service", "Old"))); !slices.Equal(got, []string{"url"}) {
		t.Errorf("DeprecatedParams(Old) = %v", got)
	}
}
