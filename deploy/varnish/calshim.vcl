# Varnish in front of calshim, purged by surrogate key (docs/features.md, "Edge caching").
# Needs Varnish 6 or later and the xkey vmod (Debian: varnish, varnish-modules). calshim runs with
#   edge_cache.s_maxage: 5m                      (how long Varnish keeps an answer at most)
#   edge_cache.purge_urls: [http://<varnish>/]   (PURGE requests carrying xkey-purge: <keys>)
# and limits.trusted_proxies naming Varnish's address (X-Forwarded-For).
vcl 4.1;

import xkey;

# calshim's address (test/varnish_test.go rewrites the port).
backend calshim {
    .host = "127.0.0.1";
    .port = "8080";
}

# Who may purge: calshim's replicas. Everyone else gets 403.
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        if (!req.http.xkey-purge) {
            return (synth(400, "No xkey-purge header"));
        }
        # A hard purge: a soft one (xkey.softpurge) would leave the changed answers to grace.
        set req.http.X-Purged = xkey.purge(req.http.xkey-purge);
        return (synth(200, "Purged"));
    }
    # A client reading its own write (X-Calshim-Min-Seq) asks calshim, which waits for the write.
    if (req.http.X-Calshim-Min-Seq) {
        return (pass);
    }
    # Everything else is Varnish's built-in: GET and HEAD without Authorization or Cookie are looked
    # up, the rest goes to calshim.
}

sub vcl_hash {
    # calshim writes the scheme into the URLs of its answers (X-Forwarded-Proto: https); the
    # built-in vcl_hash adds the URL and the Host.
    if (req.http.X-Forwarded-Proto ~ "(?i)^https$") {
        hash_data("https");
    }
}

sub vcl_backend_response {
    # xkey reads the header xkey; calshim sends Surrogate-Key unless edge_cache.key_header says xkey.
    if (beresp.http.Surrogate-Key && !beresp.http.xkey) {
        set beresp.http.xkey = beresp.http.Surrogate-Key;
    }
    # The TTL comes from calshim's s-maxage (built-in). Grace only as calshim's
    # stale-while-revalidate allows: Varnish's default grace would serve expired answers for 10 s.
    if (beresp.http.Cache-Control !~ "stale-while-revalidate") {
        set beresp.grace = 0s;
    }
}

sub vcl_deliver {
    # The keys are for Varnish, not for clients.
    unset resp.http.xkey;
    unset resp.http.Surrogate-Key;
}

sub vcl_synth {
    if (req.method == "PURGE") {
        set resp.http.X-Purged = req.http.X-Purged;
    }
}
