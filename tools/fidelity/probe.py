"""Runs inside one engine release (python3 -S, its unpacked .py files first on sys.path): builds the engine's REAL
command-line parser and reports (a) every option string it accepts and (b) what it does with each case token.

Input (stdin, JSON): {"engine": "vllm"|"sglang", "base": [...], "cases": [{"id", "flag", "name", "form"}, ...]}
  form: SEPARATE (name value; name alone when the flag takes no value), EQUALS (name=value), DOTTED
  (name.kv_role=value).
Output (stdout, JSON): {"options": [{"strings": [...], "dest": ..., "nargs0": bool}], "stubbed": [...],
                         "results": {id: {"outcome": "set"|"error", "dests": [...], "error": "..."}}}
"""
import argparse
import contextlib
import io
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# The release's unpacked .py files, then the pinned dependency wheels (the caller sets FIDELITY_PATH).
sys.path[1:1] = [p for p in os.environ.get('FIDELITY_PATH', '').split(os.pathsep) if p]
import stubs  # noqa: E402

# Runtime packages the parsers import but never use to parse. Everything else an engine imports and that is neither
# in its wheel nor in deps.txt is stubbed too (stubs.install_fallback) and listed in the output, so a run shows it.
HEAVY = ['torch', 'transformers', 'triton', 'vllm.v1.executor']
REAL = ['vllm', 'sglang', 'vllm_ascend', 'pydantic', 'pydantic_core', 'packaging', 'regex', 'typing_extensions',
        'annotated_types', 'typing_inspection', 'msgspec', 'dill']
ABSENT = ['torch_npu', 'habana_frameworks', 'intel_extension_for_pytorch', 'torch_xla', 'tpu_info', 'amdsmi',
          'pynvml', 'vllm_ascend', 'mindie_turbo', 'torch_musa', 'mlu', 'torch_mlu']


def cpu_platform():
    """No accelerator here: select vLLM's CPU platform (0.11.0 does not read VLLM_TARGET_DEVICE for that)."""
    os.environ.setdefault('VLLM_TARGET_DEVICE', 'cpu')
    import vllm.platforms as platforms
    for name in list(platforms.builtin_platform_plugins):
        platforms.builtin_platform_plugins[name] = (
            (lambda: 'vllm.platforms.cpu.CpuPlatform') if name == 'cpu' else (lambda: None))


# Where `vllm serve` (vllm/entrypoints/cli/serve.py) imports make_arg_parser from, oldest first.
SERVE_ARGS = ['vllm.entrypoints.openai.cli_args', 'vllm.entrypoints.launchers.cli_args',
              'vllm.entrypoints.common.cli_args']


def vllm_parser():
    cpu_platform()
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    import importlib
    for module in SERVE_ARGS:
        try:
            make_arg_parser = importlib.import_module(module).make_arg_parser
            break
        except ModuleNotFoundError as e:
            if not module.startswith(e.name or ''):
                raise   # the module exists and imports something missing: a real failure, not a move
    else:
        raise SystemExit('probe: none of %s in this release; find the module vllm/entrypoints/cli/serve.py imports '
                         'make_arg_parser from and add it to SERVE_ARGS' % SERVE_ARGS)
    return make_arg_parser(FlexibleArgumentParser(prog='vllm serve'))


def sglang_parser():
    from sglang.srt.server_args import ServerArgs
    parser = argparse.ArgumentParser(prog='sglang serve')
    ServerArgs.add_cli_args(parser)
    return parser


class _Stop(Exception):
    pass


def run_case(parser, defaults, argv):
    def error(message):
        raise _Stop(message)
    parser.error = error
    sink = io.StringIO()
    try:
        with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink):
            ns = parser.parse_args(argv)
    except _Stop as e:
        # "argument --x/--y: invalid choice ...": the parser read the token as that option, then refused its value.
        message = str(e)
        dests = []
        if message.startswith('argument '):
            first = message[len('argument '):].split(':', 1)[0].split('/')[0]
            action = parser._option_string_actions.get(first)
            dests = [action.dest] if action is not None else []
        return {'outcome': 'error', 'dests': dests, 'error': message}
    except SystemExit as e:
        return {'outcome': 'error', 'dests': [], 'error': 'exit %s: %s' % (e.code, sink.getvalue().strip()[-300:])}
    except Exception as e:  # a type converter that raised: the engine read the token as that option
        return {'outcome': 'error', 'dests': [], 'error': '%s: %s' % (type(e).__name__, str(e)[:300])}
    changed = sorted(k for k, v in vars(ns).items() if k not in defaults or defaults[k] != v)
    return {'outcome': 'set', 'dests': changed, 'error': ''}


# A value each owned flag accepts in every supported release, so that a spelling the parser reads as the flag sets it.
VALUES = {
    '--kv-transfer-config': '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}',
    '--kv-cache-dtype': 'fp8_e4m3',
    '--hicache-storage-backend': 'mooncake',
    '--hicache-storage-backend-extra-config': '{}',
}


def case_argv(parser, case):
    action = parser._option_string_actions.get(case['flag'])
    value = VALUES.get(case['flag'], 'x')
    if case['form'] == 'EQUALS':
        return [case['name'] + '=' + value]
    if case['form'] == 'DOTTED':
        return [case['name'] + '.kv_role=kv_both']
    return [case['name']] if action is not None and action.nargs == 0 else [case['name'], value]


def main():
    request = json.load(sys.stdin)
    stubs.install(HEAVY)
    stubs.install_fallback(REAL, ABSENT)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        parser = vllm_parser() if request['engine'] == 'vllm' else sglang_parser()
    options = []
    for action in parser._actions:
        strings = [s for s in action.option_strings if s.startswith('--')]
        if strings:
            options.append({'strings': strings, 'dest': action.dest, 'nargs0': action.nargs == 0})
    base = request.get('base', [])
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        defaults = vars(parser.parse_args(base))
    results = {case['id']: run_case(parser, defaults, base + case_argv(parser, case)) for case in request.get('cases', [])}
    json.dump({'options': options, 'stubbed': sorted(stubs.STUBBED), 'results': results}, sys.stdout)


if __name__ == '__main__':
    main()
