"""Runs inside one engine release (python3 -S, like probe.py): loads the release's REAL Mooncake configuration
reader and reports the value of every key it ends up with, for each admitted Pod the webhook rendered.

Input (stdin, JSON): {"engine": "vllm"|"sglang", "cases": [{"id", "env": {name: value}, "files": {path: text}}]}
  files: the container's files as the kubelet projects them (the downward-API file at MOONCAKE_CONFIG_PATH); they
  are written under a temporary root and the paths in env are rewritten to it.
Output (stdout, JSON): {"reader": "module.Class.method", "fields": [...], "stubbed": [...],
                         "results": {id: {"values": {key: value}} | {"error": "..."}}}
"""
import contextlib
import dataclasses
import io
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path[1:1] = [p for p in os.environ.get('FIDELITY_PATH', '').split(os.pathsep) if p]
import stubs  # noqa: E402
from probe import HEAVY, REAL, ABSENT, cpu_platform  # noqa: E402

# Where each release keeps its Mooncake store configuration reader (the first that imports is the release's), and
# the method its store connector calls (the first the class has: vLLM 0.29.0 renamed load_from_env before it moved
# the class to vllm.distributed.mooncake_store).
VLLM_READERS = [('vllm.distributed.mooncake_store', ('load_from_config',)),
                ('vllm.distributed.kv_transfer.kv_connector.v1.mooncake.store.worker',
                 ('load_from_config', 'load_from_env')),
                ('vllm.distributed.kv_transfer.kv_lookup_buffer.mooncake_store', ('load_from_env',))]
SGLANG_READER = 'sglang.srt.mem_cache.storage.mooncake_store.mooncake_store'


def vllm_reader():
    import importlib
    cpu_platform()
    why = []
    for module, methods in VLLM_READERS:
        try:
            m = importlib.import_module(module)
        except ImportError as e:
            why.append('%s (%s)' % (module, e))
            continue
        cls = getattr(m, 'MooncakeStoreConfig', None)
        for method in methods if cls is not None else ():
            if hasattr(cls, method):
                return '%s.MooncakeStoreConfig.%s' % (module, method), cls, getattr(cls, method)
        why.append('%s has no MooncakeStoreConfig.%s' % (module, '/'.join(methods)))
    raise SystemExit('config_probe: no MooncakeStoreConfig reader: ' + '; '.join(why))


# The store module's neighbours that only its data path uses (host KV pools, metrics): stubbed, so that the module
# loads by itself, without its package's __init__ (which pulls in the CUDA kernels). Its reader and sglang.srt.environ
# are the release's real code.
SGLANG_NEIGHBOURS = ['sglang.srt.mem_cache.hicache_storage', 'sglang.srt.mem_cache.memory_pool_host',
                     'sglang.srt.mem_cache.pool_host', 'sglang.srt.mem_cache.hybrid_cache',
                     'sglang.srt.observability', 'sglang.srt.metrics']


def sglang_reader():
    import importlib.util
    import sglang
    stubs.install(SGLANG_NEIGHBOURS)
    path = os.path.join(os.path.dirname(sglang.__file__), *SGLANG_READER.split('.')[1:]) + '.py'
    spec = importlib.util.spec_from_file_location(SGLANG_READER, path)
    m = importlib.util.module_from_spec(spec)
    sys.modules[SGLANG_READER] = m
    spec.loader.exec_module(m)
    # The store's own choice between extra_config, the config file and the environment (no extra config is injected).
    return ('%s.MooncakeStore._load_config' % SGLANG_READER, m.MooncakeStoreConfig,
            lambda: m.MooncakeStore._load_config(None, None))


def main():
    request = json.load(sys.stdin)
    stubs.install(HEAVY)
    stubs.install_fallback(REAL, ABSENT)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        name, cls, read = vllm_reader() if request['engine'] == 'vllm' else sglang_reader()
    fields = [f.name for f in dataclasses.fields(cls)]
    base_env = dict(os.environ)
    results = {}
    for case in request['cases']:
        with tempfile.TemporaryDirectory() as root:
            moved = {}
            for path, text in case['files'].items():
                target = os.path.join(root, path.lstrip('/'))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, 'w') as f:
                    f.write(text)
                moved[path] = target
            os.environ.clear()
            os.environ.update({k: v for k, v in base_env.items() if not k.startswith(('MOONCAKE_', 'SGLANG_', 'MC_'))})
            os.environ.update({k: moved.get(v, v) for k, v in case['env'].items()})
            try:
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                    config = read()
                results[case['id']] = {'values': {k: getattr(config, k) for k in fields}}
            except Exception as e:  # the reader refused what the webhook wrote: a disagreement, not a crash
                results[case['id']] = {'error': '%s: %s' % (type(e).__name__, str(e)[:300])}
    json.dump({'reader': name, 'fields': fields, 'stubbed': sorted(stubs.STUBBED), 'results': results}, sys.stdout,
              default=str)


if __name__ == '__main__':
    main()
