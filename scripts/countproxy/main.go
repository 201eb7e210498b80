// Command countproxy forwards HTTP requests to a WordPress and counts them, for scripts/bench-sync.sh:
//
//	countproxy PORT TARGET_URL COUNT_FILE
//
// It listens on 127.0.0.1:PORT and keeps the number of requests forwarded so far in COUNT_FILE. The
// proxy is internal/testkit/cluster's (the Host header is the target's: Debian's WordPress picks its site by
// it).
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"calshim/internal/testkit/cluster"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: countproxy PORT TARGET_URL COUNT_FILE")
		os.Exit(2)
	}
	port, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "countproxy: PORT:", err)
		os.Exit(2)
	}
	p, err := cluster.NewProxy(os.Args[2], port)
	if err != nil {
		fmt.Fprintln(os.Stderr, "countproxy:", err)
		os.Exit(1)
	}
	// The script reads the file between seconds-long waits: a tenth of a second behind is exact enough.
	written := int64(-1)
	for range time.Tick(100 * time.Millisecond) {
		if n := p.Total(); n != written {
			if err := os.WriteFile(os.Args[3], []byte(strconv.FormatInt(n, 10)), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "countproxy:", err)
				os.Exit(1)
			}
			written = n
		}
	}
}
