// The floor of issue 32's side-by-side latency benchmark: a mutating admission webhook that does almost nothing, on
// Go's standard library only (net/http, crypto/tls, encoding/json), as a Go webhook author would write it without a
// framework. For every POST it decodes the AdmissionReview, answers allowed with a JSON Patch that adds one
// annotation and one env var to the first container, encodes the response and writes one log line. net/http serves
// HTTP/2 over TLS by default (ALPN h2, http/1.1 kept), as controller-runtime's webhook server does.
//
// Flags: --host (all addresses by default), --port (8443), --cert and --key (PEM files, read once at start), --annotation (the key added,
// "trivial.kvcache-injector.io/seen"), --patch-file (a JSON Patch read once at start: answered, as it is, to reviews on
// /mutate-fixed instead of the two operations, so that a benchmark can give the API server another webhook's patch to
// apply and tell its cost from the server's), --delay (a Go duration, 0 by default: each review's answer is held that long
// before it is written, in nanosleep(2), which takes no CPU, so that a benchmark can give the floor another server's
// time at the wire and see what that time alone costs at the API server). GET /healthz answers ok. SIGTERM: stop accepting, finish what is in flight
// (net/http sends HTTP/2 GOAWAY and closes idle HTTP/1.1 connections), exit 0.
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

type review struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Request    *reviewRequest  `json:"request,omitempty"`
	Response   *reviewResponse `json:"response,omitempty"`
}

type reviewRequest struct {
	UID       string          `json:"uid"`
	Namespace string          `json:"namespace"`
	Operation string          `json:"operation"`
	Object    json.RawMessage `json:"object"`
}

type reviewResponse struct {
	UID       string `json:"uid"`
	Allowed   bool   `json:"allowed"`
	PatchType string `json:"patchType,omitempty"`
	Patch     []byte `json:"patch,omitempty"`
}

type pod struct {
	Metadata struct {
		Name         string            `json:"name"`
		GenerateName string            `json:"generateName"`
		Annotations  map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Containers []struct {
			Env []json.RawMessage `json:"env"`
		} `json:"containers"`
	} `json:"spec"`
}

func main() {
	host := flag.String("host", "", "the address to listen on (all by default)")
	port := flag.Int("port", 8443, "HTTPS port")
	cert := flag.String("cert", "/tls/tls.crt", "serving certificate (PEM)")
	key := flag.String("key", "/tls/tls.key", "its private key (PEM)")
	annotation := flag.String("annotation", "trivial.kvcache-injector.io/seen", "the annotation key added")
	patchFile := flag.String("patch-file", "", "a JSON Patch answered as it is on /mutate-fixed")
	delay := flag.Duration("delay", 0, "how long each review's answer is held before it is written (nanosleep, no CPU)")
	flag.Parse()
	if *delay < 0 || *delay > time.Second {
		log.Fatalf("trivialwebhook: --delay %s is outside 0s..1s; give a Go duration such as 450us", *delay)
	}
	var fixed []byte
	if *patchFile != "" {
		b, err := os.ReadFile(*patchFile)
		var ops []json.RawMessage
		if err == nil {
			err = json.Unmarshal(b, &ops)
		}
		if err != nil {
			log.Fatalf("trivialwebhook: --patch-file %s is not a readable JSON Patch (a JSON array of operations): %v", *patchFile, err)
		}
		fixed = b
	}
	pair, err := tls.LoadX509KeyPair(*cert, *key)
	if err != nil {
		log.Fatalf("trivialwebhook: cannot load the serving certificate %s and key %s: %v; mount a kubernetes.io/tls Secret there or pass --cert and --key", *cert, *key, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) { mutate(w, r, *annotation, nil, *delay) })
	if fixed != nil {
		mux.HandleFunc("POST /mutate-fixed", func(w http.ResponseWriter, r *http.Request) { mutate(w, r, *annotation, fixed, *delay) })
	}
	srv := &http.Server{
		Addr:              net.JoinHostPort(*host, fmt.Sprint(*port)),
		Handler:           mux,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	go func() {
		<-stop
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}()
	log.Printf("trivialwebhook: serving on %s", srv.Addr)
	if err := srv.ListenAndServeTLS("", ""); err != nil && err != http.ErrServerClosed {
		log.Fatalf("trivialwebhook: %v", err)
	}
}

// mutate answers one review: allowed, with the annotation and the env var, or with fixed when it is not nil; after
// delay, slept in the kernel: Go's own timers round a sub-millisecond sleep up to more than a millisecond when
// nothing else is running (time.Sleep(450µs) took 1.1 ms here, nanosleep 0.54 ms).
func mutate(w http.ResponseWriter, r *http.Request, annotation string, fixed []byte, delay time.Duration) {
	start := time.Now()
	var in review
	if err := json.NewDecoder(io.LimitReader(r.Body, 3<<20)).Decode(&in); err != nil || in.Request == nil {
		http.Error(w, "not an AdmissionReview with a request", http.StatusBadRequest)
		return
	}
	var p pod
	_ = json.Unmarshal(in.Request.Object, &p)
	var ops []map[string]any
	if p.Metadata.Annotations == nil {
		ops = append(ops, map[string]any{"op": "add", "path": "/metadata/annotations", "value": map[string]string{annotation: "true"}})
	} else {
		ops = append(ops, map[string]any{"op": "add", "path": "/metadata/annotations/" + strings.ReplaceAll(strings.ReplaceAll(annotation, "~", "~0"), "/", "~1"), "value": "true"})
	}
	env := map[string]string{"name": "TRIVIAL_WEBHOOK", "value": "1"}
	if len(p.Spec.Containers) > 0 {
		if p.Spec.Containers[0].Env == nil {
			ops = append(ops, map[string]any{"op": "add", "path": "/spec/containers/0/env", "value": []any{env}})
		} else {
			ops = append(ops, map[string]any{"op": "add", "path": "/spec/containers/0/env/-", "value": env})
		}
	}
	patch, _ := json.Marshal(ops)
	if fixed != nil {
		patch = fixed
	}
	out := review{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview",
		Response: &reviewResponse{UID: in.Request.UID, Allowed: true, PatchType: "JSONPatch", Patch: patch}}
	if delay > 0 {
		ts := syscall.NsecToTimespec(delay.Nanoseconds())
		for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
	name := p.Metadata.Name
	if name == "" {
		name = p.Metadata.GenerateName
	}
	log.Printf(`{"event":"admission-review","uid":%q,"namespace":%q,"name":%q,"operation":%q,"path":%q,"proto":%q,"durationMs":%.3f}`,
		in.Request.UID, in.Request.Namespace, name, in.Request.Operation, r.URL.Path, r.Proto, float64(time.Since(start).Microseconds())/1000)
}
