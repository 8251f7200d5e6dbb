"""The fidelity harness: the engines' own parsers are the oracle for the webhook's flag verdicts.

Usage (see docs/how-to/add-an-engine-release.md):  tools/fidelity/run [--releases all|oldest-newest] [--regenerate]

1. Fetches every release in releases.txt (pip download --no-deps; an sdist-only release through PyPI's simple API)
   into ${XDG_CACHE_HOME:-~/.cache}/kvcache-injector/fidelity, keeps only its .py files and metadata.
2. Asks the webhook (one Maven run of the FidelityVerdictsDump tests) for its verdict on every spelling of every
   owned flag.
3. Runs each release's real parser (probe.py, one python3 -S process per release, heavy imports stubbed) on the
   same spellings, and compares. Prints N/N per release and every disagreement; exits 1 on any.
4. Runs each release's real Mooncake configuration reader (config_probe.py, one more python3 -S process per release)
   on every admitted golden Pod of the webhook, and compares each key the webhook wrote with the value the engine
   ends up with ("config values N/N agree"); a key declared in releases.txt's limitation column is reported, not
   counted. For vLLM it first checks that the release registers the connector the Pod names (its factory.py, parsed):
   without it the engine stops at start-up and reads nothing, a disagreement unless 'kv_connector' is declared.
5. --regenerate writes the flag catalogues from the union of the releases' options; without it, the catalogues in the
   repository must equal what the releases give (exit 1 otherwise).
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CACHE = os.path.join(os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
                     'kvcache-injector', 'fidelity')
CATALOGUES = {
    'vllm': 'engines-vllm-family/src/main/resources/io/kvcacheinjector/engines/vllmfamily/vllm-flags.txt',
    'sglang': 'engines-sglang/src/main/resources/io/kvcacheinjector/engines/sglang/sglang-flags.txt',
}
# Which catalogue and which webhook verdicts a release's parser is compared with.
FAMILY = {'vllm': 'vllm', 'vllm-ascend': 'vllm', 'sglang': 'sglang'}
BASE_ARGV = {'vllm': [], 'sglang': ['--model-path', 'm']}


def log(message):
    print(message, flush=True)


def read_releases():
    releases = []
    with open(os.path.join(HERE, 'releases.txt')) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            cols = [c.strip() for c in line.split('|')]
            engine, version, parser_from = cols[0], cols[1], cols[2]
            limitation = cols[3] if len(cols) > 3 else ''
            releases.append({'engine': engine, 'version': version, 'parser': parser_from, 'limitation': limitation})
    return releases


def releases_fingerprint(releases, family):
    """The release list a catalogue was generated from, and its hash (recorded in the catalogue's header)."""
    names = ['%s %s' % (r['engine'], r['version']) for r in releases if r['engine'] == family]
    return names, hashlib.sha256('\n'.join(names).encode()).hexdigest()[:16]


def _unpack(archive, dest):
    """Keeps the .py files and the package metadata of a wheel or sdist; never installs, never runs setup.py."""
    os.makedirs(dest, exist_ok=True)
    keep = ('.py', 'METADATA', 'PKG-INFO', 'entry_points.txt')
    if archive.endswith('.whl'):
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                if name.endswith(keep):
                    z.extract(name, dest)
    else:
        with tarfile.open(archive) as t:
            for member in t.getmembers():
                if member.isfile() and member.name.endswith(keep):
                    parts = member.name.split('/', 1)
                    if len(parts) == 2:
                        member.name = parts[1]
                        t.extract(member, dest, filter='data')


def _simple_api_download(project, version, into):
    """An sdist-only release (pip download would build it): its file from PyPI's simple API, sha256-checked."""
    request = urllib.request.Request('https://pypi.org/simple/%s/' % project,
                                     headers={'Accept': 'application/vnd.pypi.simple.v1+json'})
    with urllib.request.urlopen(request, timeout=120) as r:
        index = json.load(r)
    stem = project.replace('-', '_') + '-' + version
    for f in index['files']:
        if f['filename'] in (stem + '.tar.gz', stem.replace('_', '-') + '.tar.gz'):
            target = os.path.join(into, f['filename'])
            with urllib.request.urlopen(f['url'], timeout=600) as r, open(target, 'wb') as out:
                shutil.copyfileobj(r, out)
            with open(target, 'rb') as got:
                if hashlib.sha256(got.read()).hexdigest() != f['hashes']['sha256']:
                    raise SystemExit('fidelity: %s: sha256 mismatch; delete %s and retry' % (target, CACHE))
            return target
    raise SystemExit('fidelity: %s %s has neither a wheel pip can fetch nor an sdist on PyPI' % (project, version))


def fetch(requirement, stats):
    """The unpacked .py tree of one package release, from the cache or PyPI."""
    project, version = requirement.split('==')
    dest = os.path.join(CACHE, 'releases', '%s-%s' % (project, version))
    if os.path.exists(os.path.join(dest, '.complete')):
        return dest
    tmp = tempfile.mkdtemp(dir=CACHE)
    try:
        proc = subprocess.run([sys.executable, '-m', 'pip', 'download', '--no-deps', '--only-binary', ':all:',
                               '--python-version', '3.11', '--platform', 'manylinux_2_34_x86_64', '-q', '-d', tmp,
                               requirement], capture_output=True, text=True)
        files = os.listdir(tmp)
        if proc.returncode != 0 or not files:
            archive = _simple_api_download(project, version, tmp)
        else:
            archive = os.path.join(tmp, files[0])
        stats['downloaded'] += os.path.getsize(archive)
        shutil.rmtree(dest, ignore_errors=True)
        _unpack(archive, dest)
        open(os.path.join(dest, '.complete'), 'w').close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


def fetch_deps(stats):
    site = os.path.join(CACHE, 'deps', 'site')
    with open(os.path.join(HERE, 'deps.txt')) as f:
        pins = [l.strip() for l in f if l.strip() and not l.startswith('#')]
    marker = os.path.join(site, '.complete-' + hashlib.sha256('\n'.join(pins).encode()).hexdigest()[:16])
    if os.path.exists(marker):
        return site
    shutil.rmtree(site, ignore_errors=True)
    tmp = tempfile.mkdtemp(dir=CACHE)
    try:
        subprocess.run([sys.executable, '-m', 'pip', 'download', '--no-deps', '--only-binary', ':all:',
                        '--python-version', '3.11', '--platform', 'manylinux2014_x86_64', '-q', '-d', tmp] + pins,
                       check=True)
        for name in os.listdir(tmp):
            stats['downloaded'] += os.path.getsize(os.path.join(tmp, name))
            with zipfile.ZipFile(os.path.join(tmp, name)) as z:
                z.extractall(site)
        open(marker, 'w').close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return site


def webhook_verdicts():
    """family -> list of verdict dicts, from one Maven run over the webhook's own resolver."""
    out = tempfile.mkdtemp(dir=CACHE)
    cmd = [os.path.join(REPO, 'bin', 'mvn'), '-B', '-q', '-o', 'test', '-pl', 'engines-sglang,engines-vllm-family',
           '-am', '-Dtest=FidelityVerdictsDump', '-Dsurefire.failIfNoSpecifiedTests=false', '-Dfidelity.out=' + out]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
        raise SystemExit('fidelity: the webhook verdict dump failed (%s); run it to see why' % ' '.join(cmd))
    verdicts = {}
    for family in ('vllm', 'sglang'):
        rows = []
        with open(os.path.join(out, family + '.tsv')) as f:
            for i, line in enumerate(f):
                c = line.rstrip('\n').split('\t')
                rows.append({'id': '%s-%d' % (family, i), 'flag': c[1], 'name': c[2], 'form': c[3], 'kind': c[4],
                             'competitors': c[5], 'present': c[6] == 'true'})
        verdicts[family] = rows
    shutil.rmtree(out, ignore_errors=True)
    return verdicts


def _stub_version(requirement, default):
    """The version a stubbed package reports to one release: the one it pins, else the lowest it admits."""
    import re
    spec = requirement.split(';', 1)[0]
    pinned = re.search(r'==\s*([0-9][0-9.]*)(?![.*])', spec)
    if pinned:
        return pinned.group(1)
    lowest = re.search(r'>=\s*([0-9][0-9.]*)', spec)
    return lowest.group(1) if lowest else default


def stub_dists(root):
    """Metadata-only dists of the stubbed packages (stub-dists/), each with the version the release's own metadata
    requires: a release may check it at import time (vLLM >= 0.24 refuses a transformers 4)."""
    import re
    defaults = {}
    for name in os.listdir(os.path.join(HERE, 'stub-dists')):
        project, version = name[:-len('.dist-info')].rsplit('-', 1)
        defaults[project] = version
    wanted = dict(defaults)
    metadata = [os.path.join(root, 'PKG-INFO')] + [os.path.join(root, d, m) for d in os.listdir(root)
                                                   for m in ('METADATA', 'PKG-INFO')
                                                   if d.endswith(('.dist-info', '.egg-info'))]
    for path in metadata:
        if not os.path.exists(path):
            continue
        with open(path, encoding='utf-8', errors='replace') as f:
            for line in f:
                m = re.match(r'Requires-Dist:\s*([A-Za-z0-9_.-]+)\s*(.*)$', line.strip())
                if m and m.group(1).lower() in defaults and 'extra ==' not in m.group(2):
                    wanted[m.group(1).lower()] = _stub_version(m.group(2), defaults[m.group(1).lower()])
    dest = os.path.join(CACHE, 'stub-dists', hashlib.sha256(json.dumps(wanted, sort_keys=True).encode()).hexdigest()[:16])
    if not os.path.exists(os.path.join(dest, '.complete')):
        for project, version in wanted.items():
            info = os.path.join(dest, '%s-%s.dist-info' % (project, version))
            os.makedirs(info, exist_ok=True)
            with open(os.path.join(info, 'METADATA'), 'w') as f:
                f.write('Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: metadata only: the fidelity '
                        'harness stubs this package (stubs.py)\n' % (project, version))
        open(os.path.join(dest, '.complete'), 'w').close()
    return dest


def probe(release, root, site, cases):
    family = FAMILY[release['engine']]
    env = dict(os.environ, FIDELITY_PATH=os.pathsep.join([root, site, stub_dists(root)]),
               PYTHONHASHSEED='0',
               VLLM_TARGET_DEVICE='cpu')
    env.pop('PYTHONPATH', None)
    request = {'engine': family, 'base': BASE_ARGV[family], 'cases': cases}
    proc = subprocess.run([sys.executable, '-S', os.path.join(HERE, 'probe.py')], input=json.dumps(request),
                          capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-3000:])
        raise SystemExit('fidelity: %s %s: its parser did not load (above)' % (release['engine'], release['version']))
    return json.loads(proc.stdout)


def compare(verdict, result, flag_dest):
    """(counted, agrees, why): the webhook's verdict on one spelling against one release's parser."""
    reads = flag_dest is not None and flag_dest in result['dests']
    ambiguous = result['outcome'] == 'error' and 'ambiguous option' in result['error']
    kind = verdict['kind']
    if flag_dest is None:
        return False, True, 'n/a: the release has no %s' % verdict['flag']
    if kind == 'NONE':
        ok = not reads
    elif kind == 'AMBIGUOUS_ABBREVIATION':
        ok = reads or ambiguous
    else:
        ok = reads
    if verdict['flag'] in PRESENT_CHECKED:
        # present: the webhook does not append the flag, so the engine must read the token as it or stop (an
        # ambiguous abbreviation); not present: the webhook appends it, so the engine must not already read it.
        ok = ok and ((reads or ambiguous) if verdict['present'] else not reads)
    engine_says = ('reads it as %s' % verdict['flag']) if reads else (
        'stops: ' + result['error'][:160] if result['outcome'] == 'error' else 'sets %s' % (result['dests'] or 'nothing'))
    return True, ok, 'webhook %s%s; engine %s' % (kind, ' (present)' if verdict['present'] else '', engine_says)


# The webhook's golden renderings of admitted Pods, per engine of releases.txt.
GOLDEN = {'vllm': 'engines-vllm/src/test/resources/testdata/vllm',
          'vllm-ascend': 'engines-ascend/src/test/resources/testdata/vllm-ascend',
          'sglang': 'engines-sglang/src/test/resources/testdata/sglang'}
# What a value known only once the Pod runs (valueFrom status.podIP) is taken to be.
STAND_IN = {'status.podIP': '10.1.2.3'}
# SGLang's environment vehicle: the variable the webhook writes -> the MooncakeStoreConfig field it is meant for.
SGLANG_ENV_KEYS = {'MOONCAKE_MASTER': 'master_server_address', 'MOONCAKE_TE_META_DATA_SERVER': 'metadata_server',
                   'MOONCAKE_PROTOCOL': 'protocol', 'MOONCAKE_DEVICE': 'device_name',
                   'MOONCAKE_GLOBAL_SEGMENT_SIZE': 'global_segment_size', 'MOONCAKE_LOCAL_HOSTNAME': 'local_hostname',
                   'MOONCAKE_TENANT_ID': 'tenant_id', 'MOONCAKE_STANDALONE_STORAGE': 'standalone_storage',
                   'MOONCAKE_CLIENT': 'client_server_address'}


def golden_cases(engine):
    """Each admitted golden case as the kubelet would start its target container: env, projected files, and the
    configuration values the webhook meant the engine to end up with."""
    base = os.path.join(REPO, GOLDEN[engine])
    cases = []
    for name in sorted(os.listdir(base)):
        path = os.path.join(base, name, 'expected.json')
        if not name.startswith('admit-') or not os.path.exists(path):
            continue
        with open(path) as f:
            pod = json.load(f)
        annotations = pod.get('metadata', {}).get('annotations') or {}
        if 'kvcache.gpustack.ai/injected' not in annotations:
            continue   # admitted untouched: nothing injected to read
        volumes = {v['name']: v for v in pod['spec'].get('volumes') or []}
        for c in pod['spec']['containers']:
            env, unknown = {}, []
            for e in c.get('env') or []:   # a repeated name: the last entry wins, as in the kubelet
                if 'value' in e:
                    env[e['name']] = e['value']
                elif e.get('valueFrom', {}).get('fieldRef', {}).get('fieldPath') in STAND_IN:
                    env[e['name']] = STAND_IN[e['valueFrom']['fieldRef']['fieldPath']]
                else:
                    env.pop(e['name'], None)
                    unknown.append(e['name'])
            files = {}
            for m in c.get('volumeMounts') or []:
                for item in (volumes.get(m['name'], {}).get('downwardAPI') or {}).get('items') or []:
                    field = item.get('fieldRef', {}).get('fieldPath', '')
                    if field.startswith("metadata.annotations['") and field.endswith("']"):
                        value = annotations.get(field[len("metadata.annotations['"):-2])
                        if value is not None:
                            files[m['mountPath'].rstrip('/') + '/' + item['path']] = value
            if not any(k.startswith('MOONCAKE_') for k in env) and not unknown:
                continue   # not the container the webhook configured
            if FAMILY[engine] == 'vllm':
                # A missing projected file is kept: the reader then refuses, which is reported as a disagreement.
                intended = json.loads(files.get(env.get('MOONCAKE_CONFIG_PATH'), '{"(the file)": "(projected)"}'))
            else:
                intended = {SGLANG_ENV_KEYS[k]: v for k, v in env.items() if k in SGLANG_ENV_KEYS}
            cases.append({'id': '%s/%s' % (name, c['name']), 'env': env, 'files': files, 'intended': intended,
                          'unknown': [u for u in unknown if u.startswith('MOONCAKE_')],
                          'connector': _kv_connector((c.get('command') or []) + (c.get('args') or []))})
    return cases


def _kv_connector(argv):
    """The kv_connector of the --kv-transfer-config the webhook wrote (the last one wins, as in argparse), or None."""
    found = None
    for i, token in enumerate(argv):
        value = None
        if token == '--kv-transfer-config' and i + 1 < len(argv):
            value = argv[i + 1]
        elif token.startswith('--kv-transfer-config='):
            value = token.split('=', 1)[1]
        if value is not None:
            try:
                found = json.loads(value).get('kv_connector', found)
            except (ValueError, AttributeError):
                pass
    return found


def registered_connectors(root):
    """The connector names a vLLM release's KVConnectorFactory registers: its factory.py, read (ast), not run."""
    import ast
    path = os.path.join(root, 'vllm', 'distributed', 'kv_transfer', 'kv_connector', 'factory.py')
    with open(path) as f:
        tree = ast.parse(f.read())
    return {node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, 'attr', '') == 'register_connector'
            and node.args and isinstance(node.args[0], ast.Constant)}


def _same(want, got):
    norm = lambda v: str(v).lower() if isinstance(v, bool) else str(v)
    return norm(want) == norm(got)


def config_values(release, root, site, cases):
    """(agreed, counted, limited, lines): the release's real Mooncake configuration reader on every admitted case."""
    env = dict(os.environ, FIDELITY_PATH=os.pathsep.join([root, site, stub_dists(root)]),
               PYTHONHASHSEED='0', VLLM_TARGET_DEVICE='cpu')
    env.pop('PYTHONPATH', None)
    request = {'engine': FAMILY[release['engine']],
               'cases': [{'id': c['id'], 'env': c['env'], 'files': c['files']} for c in cases]}
    proc = subprocess.run([sys.executable, '-S', os.path.join(HERE, 'config_probe.py')], input=json.dumps(request),
                          capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-3000:])
        raise SystemExit('fidelity: %s %s: its Mooncake configuration reader did not load (above)'
                         % (release['engine'], release['version']))
    got = json.loads(proc.stdout)
    limited_keys = {k.strip() for k in release['limitation'].split(':', 1)[0].split(',') if k.strip()} \
        if release['limitation'] else set()
    agreed = counted = 0
    limited, lines = set(), []
    # vLLM-Ascend's connector comes from its plugin, not from the vLLM release whose parser it runs.
    connectors = registered_connectors(root) if release['engine'] == 'vllm' else None
    for c in cases:
        result = got['results'][c['id']]
        if connectors is not None and c['connector'] and c['connector'] not in connectors:
            # The engine never builds the store the file configures: it stops at start-up on the connector name.
            if 'kv_connector' in limited_keys:
                limited.add('kv_connector')
            else:
                counted += 1
                lines.append('    %s: kv_connector: webhook %r; the release registers no such connector, so an '
                             'injected Pod stops at start-up (Unsupported connector type)' % (c['id'], c['connector']))
            continue
        for key, want in sorted(c['intended'].items()):
            if key in limited_keys and key not in got['fields']:
                limited.add(key)
                continue
            counted += 1
            if 'error' in result:
                lines.append('    %s: %s: webhook %r; engine refuses the configuration: %s'
                             % (c['id'], key, want, result['error']))
            elif key not in got['fields']:
                lines.append('    %s: %s: webhook %r; engine has no such key (%s)' % (c['id'], key, want, got['reader']))
            elif not _same(want, result['values'][key]):
                lines.append('    %s: %s: webhook %r; engine reads %r' % (c['id'], key, want, result['values'][key]))
            else:
                agreed += 1
    return agreed, counted, sorted(limited), lines, '%s, %d admitted Pods' % (got['reader'], len(cases))


# Flags whose mere presence the webhook checks (FlagResolver.present) before it appends them.
PRESENT_CHECKED = {'--enable-hierarchical-cache', '--enable-hicache'}


def catalogue_text(family, releases, options_by_release):
    names, digest = releases_fingerprint(releases, family)
    versions = [v for (_, v), _ in options_by_release]
    sets = [set(o) for _, o in options_by_release]
    lines = ['# GENERATED by tools/fidelity/run --regenerate from the real parsers of: ' + ', '.join(names),
             '# releases-sha256: ' + digest,
             '# Each line: an option string, then the first and last supported release that accepts it, one first..last',
             '# per run of consecutive releases, comma-separated (an option that left and came back, such as vLLM\'s',
             '# --disable-log-requests, has two); an option in every supported release has no range.',
             '# Do not edit; see docs/how-to/add-an-engine-release.md.']
    for opt in sorted(set().union(*sets)):
        runs, begin = [], None
        for i, options in enumerate(sets + [set()]):
            if opt in options and begin is None:
                begin = i
            elif opt not in options and begin is not None:
                runs.append('%s..%s' % (versions[begin], versions[i - 1]))
                begin = None
        lines.append(opt if runs == ['%s..%s' % (versions[0], versions[-1])] else '%s %s' % (opt, ','.join(runs)))
    return '\n'.join(lines) + '\n'


def main():
    ap = argparse.ArgumentParser(prog='tools/fidelity/run')
    ap.add_argument('--releases', choices=['all', 'oldest-newest'], default='all')
    ap.add_argument('--regenerate', action='store_true', help='rewrite the flag catalogues from the releases')
    args = ap.parse_args()
    started = time.monotonic()
    os.makedirs(CACHE, exist_ok=True)
    stats = {'downloaded': 0}
    releases = read_releases()
    chosen = releases
    if args.releases == 'oldest-newest':
        chosen = []
        for engine in dict.fromkeys(r['engine'] for r in releases):
            mine = [r for r in releases if r['engine'] == engine]
            chosen += [mine[0]] + ([mine[-1]] if len(mine) > 1 else [])
    site = fetch_deps(stats)
    verdicts = webhook_verdicts()
    failures = 0
    options_by_family = {'vllm': [], 'sglang': []}
    for release in chosen:
        family = FAMILY[release['engine']]
        root = fetch(release['parser'], stats)
        cases = [{'id': v['id'], 'flag': v['flag'], 'name': v['name'], 'form': v['form']} for v in verdicts[family]]
        got = probe(release, root, site, cases)
        actions = {}
        for o in got['options']:
            for s in o['strings']:
                actions[s] = o['dest']
        if release['engine'] == family:
            options_by_family[family].append(((release['engine'], release['version']), sorted(actions)))
        counted = agreed = skipped = 0
        bad = []
        for v in verdicts[family]:
            c, ok, why = compare(v, got['results'][v['id']], actions.get(v['flag']))
            if not c:
                skipped += 1
                continue
            counted += 1
            if ok:
                agreed += 1
            else:
                bad.append('    %s %s (%s): %s' % (v['name'], v['form'], v['flag'], why))
        cagreed, ccounted, climited, clines, reader = config_values(release, root, site,
                                                                   golden_cases(release['engine']))
        label = '%s %s' % (release['engine'], release['version'])
        if release['parser'] != '%s==%s' % (release['engine'], release['version']):
            label += ' (parser of %s)' % release['parser']
        log('%s: flags %d/%d agree%s%s' % (label, agreed, counted,
                                          ', %d n/a (option absent in this release)' % skipped if skipped else '',
                                          '' if not release['limitation'] else
                                          '; known limitation: ' + release['limitation']))
        log('    stubbed imports: ' + ', '.join(got['stubbed']))
        for line in bad:
            log(line)
        failures += len(bad)
        log('%s: config values %d/%d agree%s (reader %s)' % (
            label, cagreed, ccounted, '; not readable (limitation): ' + ', '.join(climited) if climited else '',
            reader))
        for line in clines:
            log(line)
        failures += len(clines)
    for family, path in CATALOGUES.items():
        if args.releases != 'all':
            continue
        text = catalogue_text(family, releases, options_by_family[family])
        full = os.path.join(REPO, path)
        with open(full) as f:
            current = f.read()
        if current == text:
            log('catalogue %s: up to date' % path)
        elif args.regenerate:
            with open(full, 'w') as f:
                f.write(text)
            log('catalogue %s: regenerated' % path)
        else:
            log('catalogue %s: differs from the releases; run tools/fidelity/run --regenerate' % path)
            failures += 1
    log('fidelity: %s, %.0f s, %.1f MB downloaded' % ('%d disagreement(s)' % failures if failures else 'all agree',
                                                      time.monotonic() - started, stats['downloaded'] / 1e6))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
