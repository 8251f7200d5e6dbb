"""Lightweight stand-ins for an engine's heavy runtime imports (torch, transformers, triton, ...).

The harness loads an engine's real argument-parser module unchanged; whatever that module imports for the GPU
runtime and nothing in the parser needs is replaced by a stub module whose attributes are permissive stub classes.
Nothing the harness measures (argparse, the engine's own parser and configuration classes, pydantic) is stubbed:
those are the real code, from the engine's wheel and from the pinned wheels in deps.txt.
"""
import abc
import importlib.abc
import importlib.machinery
import sys
import types

STUBBED = []


class _IInfo:
    def __init__(self, *a, **k):
        self.min, self.max, self.bits = -2**63, 2**63 - 1, 64


class _FInfo:
    def __init__(self, *a, **k):
        self.min, self.max, self.eps, self.bits = -3.4e38, 3.4e38, 1.2e-7, 32


def _infer_schema(fn, *a, **k):
    """torch.library.infer_schema, as far as vLLM's IR ops read it at import time (vLLM 0.21.0 splits the schema at
    ' -> ' and counts the returned Tensors): one Tensor per Tensor in the function's return annotation."""
    import inspect
    ret = inspect.signature(fn).return_annotation
    text = ret if isinstance(ret, str) else ' '.join(getattr(x, '__qualname__', str(x))
                                                      for x in (getattr(ret, '__args__', None) or (ret,)))
    n = max(text.count('Tensor'), 1)
    return '(...) -> ' + ('Tensor' if n == 1 else '(' + ', '.join(['Tensor'] * n) + ')')


# The few values a parser module computes from torch at import time (bounds of pydantic fields, op schemas).
PRESETS = {'torch': {'iinfo': _IInfo, 'finfo': _FInfo}, 'torch.library': {'infer_schema': _infer_schema}}
# Attributes a stub module does not have: torch's accelerator back-ends that only their plugins add.
# triton has no active driver (no GPU), as on a CPU-only machine.
MISSING = {'torch': {'npu', 'musa', 'mlu', 'hpu'}, 'triton.runtime': {'driver'}}

# Dunder attributes a module reads off a stubbed class at import time (transformers patches); every other dunder
# is absent, so Python's and pydantic's protocol probes see a plain class.
_STUB_DUNDERS = {'__func__', '__class_validators__'}


class _StubMeta(abc.ABCMeta):
    def __getattr__(cls, name):
        if (name.startswith('__') and name.endswith('__') and name not in _STUB_DUNDERS
                or name in MISSING.get(cls.__qualname__, ())):
            raise AttributeError(name)
        return _make(cls.__qualname__ + '.' + name)
    def __getitem__(cls, item): return cls
    def __setitem__(cls, k, v): pass
    def __contains__(cls, k): return False
    def __or__(cls, other): return cls
    def __ror__(cls, other): return cls
    def __iter__(cls): return iter(())
    def __len__(cls): return 0
    def __new__(mcs, name, bases, ns, **kwargs):
        return super().__new__(mcs, name, bases, ns)

    def register(cls, *a, **k): return a[-1] if a else cls   # AutoConfig.register(name, cls), not ABC's
    def __int__(cls): return 0
    def __index__(cls): return 0
    def __float__(cls): return 0.0
    def __call__(cls, *a, **k):
        if len(a) == 1 and not k and callable(a[0]) and not isinstance(a[0], _StubMeta):
            return a[0]   # used as a decorator
        return super().__call__(*a, **k)

class _StubBase(metaclass=_StubMeta):
    def __init_subclass__(cls, **kwargs):   # class Kwargs(TypedDictStub, total=False)
        super().__init_subclass__()

    @classmethod
    def __get_pydantic_core_schema__(cls, source, handler):
        from pydantic_core import core_schema
        return core_schema.any_schema()
    def __init__(self, *a, **k): pass
    def __getattr__(self, name):
        if name.startswith('__') and name.endswith('__'):
            raise AttributeError(name)
        return _make(type(self).__qualname__ + '.' + name)
    def __call__(self, *a, **k):
        if len(a) == 1 and not k and callable(a[0]):
            return a[0]
        return _make('call')()
    def __getitem__(self, item): return self
    def __setitem__(self, k, v): pass
    def __contains__(self, k): return False
    def __iter__(self): return iter(())
    def __len__(self): return 0
    def __bool__(self): return False
    def __enter__(self): return self
    def __exit__(self, *a): return False
    def __mro_entries__(self, bases): return (type(self),)
    def __int__(self): return 0
    def __index__(self): return 0
    def __float__(self): return 0.0
    def __str__(self): return ''
    def __fspath__(self): return ''
    def __hash__(self): return 0
    def __eq__(self, o): return isinstance(o, _StubBase)
    def __ne__(self, o): return not isinstance(o, _StubBase)
    def __lt__(self, o): return False
    __le__ = __gt__ = __ge__ = __lt__
    def __radd__(self, o): return o
    def __add__(self, o): return self
    __sub__ = __mul__ = __truediv__ = __floordiv__ = __mod__ = __pow__ = __and__ = __or__ = __xor__ = __matmul__ = __add__
    __rsub__ = __rmul__ = __rtruediv__ = __rfloordiv__ = __rmod__ = __rpow__ = __rand__ = __ror__ = __rxor__ = __radd__
    def __neg__(self): return self

def _make(name):
    return _StubMeta(name, (_StubBase,), {'__module__': 'stub'})

class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith('__') and name.endswith('__') or name in MISSING.get(self.__name__, ()):
            raise AttributeError(name)
        v = _make(self.__name__ + '.' + name)
        setattr(self, name, v)
        return v

class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        m.__version__ = '2.9.0'
        for k, v in PRESETS.get(spec.name, {}).items():
            setattr(m, k, v)
        return m
    def exec_module(self, module):
        pass

class StubFinder(importlib.abc.MetaPathFinder):
    def __init__(self, roots):
        self.roots = set(roots)
    def find_spec(self, name, path=None, target=None):
        hit = next((r for r in self.roots if name == r or name.startswith(r + '.')), None)
        if hit is not None:
            if hit not in STUBBED: STUBBED.append(hit)
            return importlib.machinery.ModuleSpec(name, _Loader(), is_package=True)
        return None

def install(roots):
    sys.meta_path.insert(0, StubFinder(roots))

class FallbackFinder(importlib.abc.MetaPathFinder):
    """Last on sys.meta_path: any top-level module no real finder found becomes a stub."""
    def __init__(self, never, absent):
        self.never = set(never) | set(absent)
    def find_spec(self, name, path=None, target=None):
        root = name.split('.')[0]
        if root in self.never or root in sys.stdlib_module_names:
            return None
        if root not in STUBBED: STUBBED.append(root)
        return importlib.machinery.ModuleSpec(name, _Loader(), is_package=True)

def install_fallback(never, absent=()):
    """Stubs every other missing top-level module, except those in `absent`, which stay missing (accelerator
    plugins: a stub would make an engine believe it runs on that device)."""
    sys.meta_path.append(FallbackFinder(never, absent))
