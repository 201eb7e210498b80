// Command staticgin is the ceiling `make bench` compares calshim with: a gin server that answers
// every GET with the same bytes from memory (a file given by -body, e.g. calshim's warm GET /events
// answer), with no routing, parsing, logging or metrics.
package main

import (
	"flag"
	"log"
	"net/http"
	"os"

	"github.com/gin-gonic/gin"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:18110", "address to listen on")
	file := flag.String("body", "", "file whose bytes every answer carries")
	flag.Parse()
	body, err := os.ReadFile(*file)
	if err != nil {
		log.Fatal(err)
	}

	gin.SetMode(gin.ReleaseMode)
	g := gin.New()
	g.NoRoute(func(c *gin.Context) { c.Data(http.StatusOK, "application/json; charset=UTF-8", body) })
	log.Fatal(http.ListenAndServe(*listen, g))
}
