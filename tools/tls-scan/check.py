"""Checks one sslyze scan of `serve` against the webhook's TLS profile (docs/reference/endpoints.md, "TLS profile").

Usage: check.py PROFILE KEY_TYPE SSLYZE_STDOUT SSLYZE_JSON
  PROFILE   intermediate | modern
  KEY_TYPE  ecdsa | rsa: the serving certificate's key
Two sources, both sslyze's: its Mozilla compliance verdict (the `--mozilla_config` section of its output) and its
JSON results, read here for the exact sets the profile promises. Prints one line per finding; exits 1 on any.
"""
import json
import re
import sys

TLS13 = {'TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'}
TLS12 = {
    'ecdsa': {'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
              'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'},
    'rsa': {'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
            'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256'},
}
CURVES = {'X25519', 'secp256r1', 'secp384r1'}
VERSIONS = {'intermediate': ['tls_1_3_cipher_suites', 'tls_1_2_cipher_suites'],
            'modern': ['tls_1_3_cipher_suites']}
ALL_VERSIONS = ['ssl_2_0_cipher_suites', 'ssl_3_0_cipher_suites', 'tls_1_0_cipher_suites', 'tls_1_1_cipher_suites',
                'tls_1_2_cipher_suites', 'tls_1_3_cipher_suites']
# Mozilla's rules about the certificate itself, not about the listener: the chart's self-signed certificate lives
# 3650 days (its tls.selfSigned.validityDays) and "modern" asks for at most 90. The scan is of the TLS profile;
# these are reported, not failed. Trust is not set aside: sslyze is given the CA and must verify the chain.
CERTIFICATE_ASIDE = {'maximum_certificate_lifespan'}


def compliance(stdout):
    """sslyze's verdict: (compliant, {issue: message}) from its COMPLIANCE section."""
    section = stdout.split('COMPLIANCE AGAINST TLS CONFIGURATION', 1)
    if len(section) < 2:
        raise SystemExit('tls scan: sslyze printed no compliance section; its output:\n' + stdout)
    text = section[1]
    issues = dict(re.findall(r'^\s*\* (\w+): (.*)$', text, re.M))
    compliant = re.search(r': OK - Compliant\.', text) is not None
    if not compliant and not issues and 'FAILED' not in text:
        raise SystemExit('tls scan: sslyze gave no verdict:\n' + text)
    return compliant, issues


def findings(profile, key_type, stdout, scan):
    out = []
    _, issues = compliance(stdout)
    for name, message in sorted(issues.items()):
        if name in CERTIFICATE_ASIDE:
            print('   (certificate, set aside) %s: %s' % (name, message))
        else:
            out.append('mozilla %s: %s: %s' % (profile, name, message))
    results = scan['server_scan_results']
    if len(results) != 1 or results[0]['scan_status'] != 'COMPLETED':
        return out + ['the scan did not complete: %s' % [r.get('connectivity_error_trace') for r in results]]
    if results[0]['server_location']['ip_address'] != '127.0.0.1':
        return out + ['scanned %s, not 127.0.0.1' % results[0]['server_location']['ip_address']]
    r = results[0]['scan_result']
    for field in ALL_VERSIONS:
        attempt = r[field]
        if attempt['status'] != 'COMPLETED':
            out.append('%s: %s' % (field, attempt['status']))
            continue
        supported = attempt['result']['is_tls_version_supported']
        accepted = {s['cipher_suite']['name'] for s in attempt['result']['accepted_cipher_suites']}
        if field not in VERSIONS[profile]:
            if supported:
                out.append('%s accepted (%s)' % (field, ', '.join(sorted(accepted))))
            continue
        expected = TLS13 if field == 'tls_1_3_cipher_suites' else TLS12[key_type]
        if accepted != expected:
            out.append('%s: accepted %s, expected exactly %s' % (field, sorted(accepted), sorted(expected)))
        for s in attempt['result']['accepted_cipher_suites']:
            key = s.get('ephemeral_key') or {}
            if key.get('type_name') != 'ECDH' and field != 'tls_1_3_cipher_suites':
                out.append('%s %s: key exchange %s, not ECDHE' % (field, s['cipher_suite']['name'],
                                                                  key.get('type_name')))
    curves = {c['name'] for c in (r['elliptic_curves']['result'] or {}).get('supported_curves') or []}
    if curves != CURVES:
        out.append('curves: offered %s, expected exactly %s' % (sorted(curves), sorted(CURVES)))
    reneg = r['session_renegotiation']['result']
    if reneg is None:
        out.append('renegotiation: not scanned')
    else:
        if reneg['is_vulnerable_to_client_renegotiation_dos'] or reneg['client_renegotiations_success_count']:
            out.append('renegotiation: the server honours client-initiated renegotiation (%d accepted)'
                       % reneg['client_renegotiations_success_count'])
        # RFC 5746's renegotiation_info: it is what tells a client the server is not open to the insecure
        # renegotiation attack, and Mozilla's check requires it; it does not mean a renegotiation is honoured
        if not reneg['supports_secure_renegotiation']:
            out.append('renegotiation: RFC 5746 secure renegotiation not signalled')
    return out


def main():
    profile, key_type, stdout_file, json_file = sys.argv[1:5]
    with open(stdout_file) as f:
        stdout = f.read()
    with open(json_file) as f:
        scan = json.load(f)
    found = findings(profile, key_type, stdout, scan)
    for line in found:
        print('   DEVIATION ' + line)
    if not found:
        verdict = 'compliant' if compliance(stdout)[0] else 'compliant but for the certificate, set aside above'
        print('   ok: Mozilla %s %s; exactly the profile\'s suites and groups; no renegotiation' % (profile, verdict))
    sys.exit(1 if found else 0)


if __name__ == '__main__':
    main()
