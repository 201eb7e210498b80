// Command benchroll measures a rolling restart of three calshim replicas behind haproxy
// (internal/testkit/cluster, as test/replicas_test.go runs them): each replica in turn gets SIGTERM (the drain),
// is started again as soon as it exits, from its snapshot file, and the next one follows once haproxy
// sees it up. It prints how long the roll took and how long haproxy had fewer than three replicas up.
// scripts/bench-load.sh runs it (ROLL=1); alone:
//
//	go run ./scripts/benchroll -bin calshim -wp http://127.0.0.4:8884 -user calshim-reader -password ...
package main

import (
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"calshim/internal/testkit/cluster"
)

func main() {
	bin := flag.String("bin", "", "the calshim binary")
	wp := flag.String("wp", "", "WordPress' URL")
	user := flag.String("user", "", "the reader's user name")
	password := flag.String("password", "", "the reader's application password")
	drain := flag.String("drain", "1500ms", "each replica's shutdown drain")
	flag.Parse()
	dir, err := os.MkdirTemp("", "benchroll-")
	check(err)
	defer func() { _ = os.RemoveAll(dir) }()
	t0 := time.Now()
	c, err := cluster.Start(cluster.Config{Bin: *bin, Dir: dir, WPURL: *wp, Replicas: 3,
		LoadTimeout: 20 * time.Minute, Env: []string{
			"CALSHIM_UPSTREAM_USER=" + *user, "CALSHIM_UPSTREAM_APP_PASSWORD=" + *password,
			"CALSHIM_CATALOG_POLL_INTERVAL=1s", "CALSHIM_SHUTDOWN_DRAIN=" + *drain, "CALSHIM_UPSTREAM_TIMEOUT=120s",
			"CALSHIM_LOG_LEVEL=warn"}})
	check(err)
	defer c.Close()
	fmt.Printf("three replicas loaded and up in %.1f s\n", time.Since(t0).Seconds())
	time.Sleep(3 * time.Second) // each replica writes its snapshot when it stops; let the polls settle

	var reduced atomic.Int64 // nanoseconds with fewer than three up
	done := make(chan struct{})
	go func() {
		last := time.Now()
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			up := 0
			for i := range c.Replicas {
				if st, _ := c.Status(i); st == "UP" {
					up++
				}
			}
			now := time.Now()
			if up < len(c.Replicas) {
				reduced.Add(int64(now.Sub(last)))
			}
			last = now
		}
	}()
	t1 := time.Now()
	for i, r := range c.Replicas {
		t := time.Now()
		check(r.Term(60 * time.Second))
		stopped := time.Since(t)
		check(r.Start())
		check(c.WaitUp(i, 10*time.Minute))
		fmt.Printf("replica %d: exited %.1f s after SIGTERM (drain %s, then its snapshot written), up again %.1f s later\n",
			i, stopped.Seconds(), *drain, (time.Since(t) - stopped).Seconds())
	}
	roll := time.Since(t1)
	close(done)
	fmt.Printf("rolling restart: %.1f s, of which %.1f s with fewer than three replicas up\n", roll.Seconds(),
		time.Duration(reduced.Load()).Seconds())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchroll:", err)
		os.Exit(1)
	}
}
