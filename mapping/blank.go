package mapping

// blankedField returns the replacement of a key of Validator\Base::PASSWORD_PROTECTED_FIELDS
// (applied by Validator\Base::remove_password_protected_content), and false for a key that is not
// blanked. Values are fresh on each call so that callers can change them.
func blankedField(key string) (any, bool) {
	switch key {
	case "description", "excerpt", "cost", "website", "virtual_url", "virtual_video_source",
		"email", "phone", "stateprovince", "zip", "province", "country", "city", "address":
		return "", true
	case "image":
		return false, true
	case "all_day", "show_map", "show_map_link", "hide_from_listings", "sticky", "featured",
		"ticketed", "is_virtual":
		return nil, true
	case "cost_details":
		return Object{
			{"currency_symbol", ""},
			{"currency_position", ""},
			{"currency_code", ""},
			{"values", []any{}},
		}, true
	case "categories", "tags", "venue", "organizer", "custom_fields":
		// "venue" and "organizer" are also the name keys of venues and organizers, which so become []
		// in the original too ("state" is not in the list and stays).
		return []any{}, true
	case "geo_lat", "geo_lng":
		return 0, true
	case "attendance":
		return Object{{"total_attendees", nil}, {"checked_in", nil}, {"not_checked_in", nil}}, true
	}

	return nil, false
}

// Blank hides the password-protected content of a representation as the original does for a viewer
// without the password (Validator\Base::remove_password_protected_content): every key of the
// protected list that is present is replaced (description "", image false, show_map null, venue [],
// …), other objects and lists are processed recursively. Keys that are absent stay absent. o is not
// modified.
func Blank(o Object) Object {
	out := make(Object, len(o))
	for i, kv := range o {
		if v, ok := blankedField(kv.Key); ok {
			out[i] = KV{kv.Key, v}
			continue
		}
		out[i] = KV{kv.Key, blankValue(kv.Value)}
	}

	return out
}

// blankValue recurses into the objects inside a value; list indices never match a protected key.
func blankValue(v any) any {
	switch x := v.(type) {
	case Object:
		return Blank(x)
	case []Object:
		out := make([]Object, len(x))
		for i, o := range x {
			out[i] = Blank(o)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = blankValue(e)
		}
		return out
	}

	return v
}
