"""Stand-in for `python3 -m sglang.launch_server` in kvci.local/sglang-cpu:0.5.23 (see /usr/local/bin/python3).

SGLang 0.5.23 cannot serve on a CPU (its CPU kernels are not published), but its Mooncake HiCache backend is plain
Python over mooncake.store. This probe runs exactly that part, unchanged:

  1. SGLang's own reader: MooncakeStoreConfig.load_from_env() (sglang/srt/mem_cache/storage/mooncake_store/
     mooncake_store.py) reads MOONCAKE_MASTER, MOONCAKE_TE_META_DATA_SERVER, MOONCAKE_PROTOCOL, MOONCAKE_DEVICE,
     MOONCAKE_GLOBAL_SEGMENT_SIZE, MOONCAKE_LOCAL_HOSTNAME, MOONCAKE_TENANT_ID, ... as the server would.
  2. SGLang's own MooncakeStore(storage_config, mem_pool=None) -- constructible without a GPU: with
     standalone_storage off it never touches mem_pool -- calls MooncakeDistributedStore.setup(local_hostname,
     metadata_server, global_segment_size, 16 MB, protocol, device_name, master_server_address, None,
     tenant_id=...) itself and then its own warm-up put/get. Its storage_config is what a 1-GPU server
     (tp=pp=cp=1, MHA) passes.
  3. KVCI_PAGE_ACTION=put|get on KVCI_PAGE_KEY (default kvci-page-0): 64 KiB of bytes derived from the key
     (sha256(key || counter) stream), put through the same MooncakeDistributedStore, or got and compared.

It prints ONE line `sglang-probe: {json}` on stdout and then sleeps forever, so a Pod stays Running and its log is
readable. A failing setup is reported in that line ("error") instead of exiting.
"""
import hashlib
import json
import os
import sys
import time
import traceback

PAGE_BYTES = 64 * 1024


def page(key: str) -> bytes:
    out = bytearray()
    i = 0
    while len(out) < PAGE_BYTES:
        out += hashlib.sha256(key.encode() + i.to_bytes(8, "big")).digest()
        i += 1
    return bytes(out[:PAGE_BYTES])


def flag_value(argv, name):
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return None


def main() -> dict:
    argv = sys.argv[1:]
    action = os.environ.get("KVCI_PAGE_ACTION", "")
    key = os.environ.get("KVCI_PAGE_KEY", "kvci-page-0")
    rec = {
        "argv": argv,
        "config": None,
        "hicacheStorageBackend": flag_value(argv, "--hicache-storage-backend"),
        "hierarchicalCache": any(a in ("--enable-hierarchical-cache", "--enable-hicache") for a in argv),
        "setup": None,
        "action": action or None,
        "key": key,
    }
    try:
        from sglang.srt.mem_cache.hicache_storage import HiCacheStorageConfig
        from sglang.srt.mem_cache.storage.mooncake_store.mooncake_store import (
            MooncakeStore,
            MooncakeStoreConfig,
        )

        cfg = MooncakeStoreConfig.load_from_env()
        rec["config"] = {
            k: getattr(cfg, k)
            for k in (
                "master_server_address",
                "metadata_server",
                "protocol",
                "device_name",
                "global_segment_size",
                "local_hostname",
                "tenant_id",
            )
        }
    except Exception as e:  # noqa: BLE001 - reported, not raised
        rec["error"] = f"config: {type(e).__name__}: {e}"
        return rec

    storage_config = HiCacheStorageConfig(
        tp_rank=0,
        tp_size=1,
        pp_rank=0,
        pp_size=1,
        attn_cp_rank=0,
        attn_cp_size=1,
        is_mla_model=False,
        enable_storage_metrics=False,
        is_page_first_layout=True,
        model_name=flag_value(argv, "--model-path"),
    )
    try:
        # SGLang's own class: reads the env again (no extra_config, no SGLANG_HICACHE_MOONCAKE_CONFIG_PATH) and
        # calls MooncakeDistributedStore.setup(...) with exactly the arguments the server would.
        ms = MooncakeStore(storage_config=storage_config, mem_pool=None)
        rec["setup"] = 0
    except Exception as e:  # noqa: BLE001
        msg = f"{type(e).__name__}: {e}"
        rec["error"] = "setup: " + msg
        code = msg.rsplit("error code:", 1)
        rec["setup"] = int(code[1].strip()) if len(code) == 2 and code[1].strip().lstrip("-").isdigit() else -1
        return rec

    store = ms.store  # the mooncake.store.MooncakeDistributedStore SGLang set up
    data = page(key)
    if action == "put":
        rec["put"] = store.put(key, data)
    elif action == "get":
        found = store.is_exist(key) == 1
        got = store.get(key) if found else b""
        rec["found"] = found
        rec["equal"] = bool(found and got == data)
    elif action:
        rec["error"] = f"unknown KVCI_PAGE_ACTION {action!r} (put or get)"
    return rec


if __name__ == "__main__":
    try:
        rec = main()
    except Exception as e:  # noqa: BLE001
        rec = {"argv": sys.argv[1:], "error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(limit=3)}
    sys.stdout.write("sglang-probe: " + json.dumps(rec, separators=(",", ":"), default=str) + "\n")
    sys.stdout.flush()
    if os.environ.get("KVCI_PROBE_EXIT") == "1":  # for build-time checks only
        sys.exit(0)
    while True:
        time.sleep(3600)
