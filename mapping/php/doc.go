// Package php reproduces the PHP built-ins and the WordPress and tribe-common helpers whose exact
// output the v1 representations show or whose answers decide a request: strtotime (ParseTime),
// is_numeric and Tribe__Date_Utils::is_timestamp, PHP's casts and loose comparisons of strings,
// esc_html, esc_js, esc_url, antispambot, wpautop and sanitize_title. It depends on the standard
// library only, and every function says where it differs from the original.
package php
