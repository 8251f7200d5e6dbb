// The stub workloads of NodeE2E (tools/e2e/images.sh): one static program installed under the names the injected
// Pods run, so that a real kubelet starts Pods the webhook mutated without any inference engine in the image.
//
//   - vllm, python3 (the engines' entry points): print a report of what the container sees — its arguments, its
//     environment, the Pod IP, and the content of every file named by MOONCAKE_CONFIG_PATH — as "stub: ..."
//     lines on stdout (and every file under /cb-plugin, where the CacheBlend plugin is staged), then wait for SIGTERM
//     and exit 0;
//   - lmcache server: the stand-in of the node-local CacheBlend engine; it listens on the TCP port of its --port
//     argument (default 5555) on all addresses, accepts and closes connections, and exits 0 on SIGTERM;
//   - payload: the CacheBlend plugin payload (the image's entry point, run as the init container cb-plugin-stage):
//     writes lmcache_cacheblend/__init__.py into $SHARED_DIR, as the real payload stages its plugin there, and
//     exits 0;
//   - sleep: waits for SIGTERM.
//
// Each report line has the form "stub: KEY VALUE" with VALUE base64-encoded where it may hold newlines, so that the
// suite reads it back byte for byte from `kubectl logs`.
package main

import (
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	name := filepath.Base(os.Args[0])
	args := os.Args[1:]
	if name == "stub" && len(args) > 0 {
		name, args = args[0], args[1:]
	}
	switch name {
	case "vllm", "python3", "python":
		report(name, args)
		wait()
	case "lmcache":
		if len(args) == 0 || args[0] != "server" {
			fmt.Fprintln(os.Stderr, "stub: usage: lmcache server --port N")
			os.Exit(2)
		}
		serve(args[1:])
	case "payload":
		stage()
	case "sleep":
		wait()
	default:
		fmt.Fprintf(os.Stderr, "stub: unknown role %q (run as vllm, python3, lmcache, payload or sleep)\n", name)
		os.Exit(2)
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func report(name string, args []string) {
	fmt.Printf("stub: entry %s\n", name)
	fmt.Printf("stub: argv %s\n", b64(strings.Join(args, "\x00")))
	env := os.Environ()
	sort.Strings(env)
	for _, kv := range env {
		fmt.Printf("stub: env %s\n", b64(kv))
	}
	if path := os.Getenv("MOONCAKE_CONFIG_PATH"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Printf("stub: file-error %s %s\n", b64(path), b64(err.Error()))
		} else {
			fmt.Printf("stub: file %s %s\n", b64(path), base64.StdEncoding.EncodeToString(data))
		}
	}
	// what an init container staged for the engine (the CacheBlend plugin is mounted at /cb-plugin)
	filepath.WalkDir("/cb-plugin", func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			fmt.Printf("stub: staged %s\n", b64(path))
		}
		return nil
	})
	// a reverse lookup of the API server's Service address through the Pod's resolver, as a TLS server that names
	// its peer would make: the node suite checks that its DNS drops the packets (the lookup times out)
	if host := os.Getenv("KUBERNETES_SERVICE_HOST"); host != "" {
		names, err := net.LookupAddr(host)
		if err != nil {
			fmt.Printf("stub: reverse-lookup %s\n", b64("error: "+err.Error()))
		} else {
			fmt.Printf("stub: reverse-lookup %s\n", b64(strings.Join(names, " ")))
		}
	}
	fmt.Printf("stub: uid %d\n", os.Getuid())
	fmt.Println("stub: ready")
}

func wait() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	<-signals
	os.Exit(0)
}

func stage() {
	dir := os.Getenv("SHARED_DIR")
	if dir == "" {
		fmt.Fprintln(os.Stderr, "stub: payload needs SHARED_DIR")
		os.Exit(1)
	}
	pkg := filepath.Join(dir, "lmcache_cacheblend")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "stub: payload cannot create %s: %v\n", pkg, err)
		os.Exit(1)
	}
	if err := os.WriteFile(filepath.Join(pkg, "__init__.py"), []byte("# staged by the e2e payload stub\n"), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "stub: payload cannot write into %s: %v\n", pkg, err)
		os.Exit(1)
	}
	fmt.Printf("stub: staged %s\n", pkg)
}

func serve(args []string) {
	port := 5555
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--port" {
			n, err := strconv.Atoi(args[i+1])
			if err != nil || n <= 0 || n > 65535 {
				fmt.Fprintf(os.Stderr, "stub: --port %q is not a port\n", args[i+1])
				os.Exit(2)
			}
			port = n
		}
	}
	l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		fmt.Fprintf(os.Stderr, "stub: lmcache-server cannot listen on %d: %v\n", port, err)
		os.Exit(1)
	}
	fmt.Printf("stub: lmcache-server listening %d\n", port)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	wait()
}
