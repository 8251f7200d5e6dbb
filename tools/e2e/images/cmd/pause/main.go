// The sandbox ("pause") image of the e2e node (tools/e2e/cluster.sh): it holds the Pod's namespaces, reaps the
// children it inherits, and exits 0 on SIGTERM or SIGINT. Containerd's sandbox_image points at it, so that no
// registry is needed.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range signals {
		if s == syscall.SIGCHLD {
			for {
				var status syscall.WaitStatus
				pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
			continue
		}
		os.Exit(0)
	}
}
