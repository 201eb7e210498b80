package main

func runWrites(o *options, orig, cal *Site) error { return nil }
