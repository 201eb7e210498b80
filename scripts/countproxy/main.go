// Command countproxy forwards HTTP requests to a WordPress and counts them, for scripts/bench-sync.sh:
//
//	countproxy LISTEN_ADDR TARGET_URL COUNT_FILE
//
// It writes the number of requests forwarded so far to COUNT_FILE after each one, and appends each
// request's method and path to COUNT_FILE.paths. The Host header is the target's: Debian's WordPress
// picks its site by it.
package main

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"
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
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target)
		pr.Out.Host = target.Host
	}}
	paths, err := os.Create(os.Args[3] + ".paths")
	if err != nil {
		fmt.Fprintln(os.Stderr, "countproxy:", err)
		os.Exit(1)
	}
	var mu sync.Mutex
	n := 0
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		_ = os.WriteFile(os.Args[3], []byte(strconv.Itoa(n)), 0o644)
		_, _ = fmt.Fprintln(paths, time.Now().Format("15:04:05.000"), r.Method, r.URL.RequestURI())
		mu.Unlock()
		rp.ServeHTTP(w, r)
	})
	fmt.Fprintln(os.Stderr, "countproxy:", http.ListenAndServe(os.Args[1], handler))
	os.Exit(1)
}
