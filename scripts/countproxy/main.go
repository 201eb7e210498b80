// Command countproxy forwards HTTP requests to a WordPress and counts them, for scripts/bench-sync.sh:
//
//	countproxy LISTEN_ADDR TARGET_URL COUNT_FILE
//
// It writes the number of requests forwarded so far to COUNT_FILE after each one. The Host header is
// the target's: Debian's WordPress picks its site by it.
package main

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"sync"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: countproxy LISTEN_ADDR TARGET_URL COUNT_FILE")
		os.Exit(2)
	}
	target, err := url.Parse(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "countproxy:", err)
		os.Exit(2)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	direct := rp.Director
	rp.Director = func(r *http.Request) {
		direct(r)
		r.Host = target.Host
	}
	var mu sync.Mutex
	n := 0
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		_ = os.WriteFile(os.Args[3], []byte(strconv.Itoa(n)), 0o644)
		mu.Unlock()
		rp.ServeHTTP(w, r)
	})
	fmt.Fprintln(os.Stderr, "countproxy:", http.ListenAndServe(os.Args[1], handler))
	os.Exit(1)
}
