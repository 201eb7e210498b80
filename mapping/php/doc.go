// Package php reproduces the PHP built-ins and the WordPress and tribe-common helpers whose exact
// output the v1 representations show or whose answers decide a request: strtotime (ParseTime),
// is_numeric and Tribe__Date_Utils::is_timestamp, PHP's casts, empty() and loose comparisons,
// tribe_is_truthy, filter_var's booleans, is_positive_int, urlencode and urldecode, esc_html,
// esc_js, esc_url, antispambot, wpautop and sanitize_title; the readings of lists (Tribe's
// list_to_array, to_list and is_string, wp_parse_list, wp_parse_id_list) and of a query string (PHP's
// variable names and max_input_vars, wp_parse_str). Each is ported here once, for every
// package; every function says where it differs from the original, and TestRules checks each on a
// table of inputs against php itself where it is installed. It depends on the standard library
// and internal/memo only.
package php
