// Command gen writes config.example.yaml and docs/configuration.md from the table of settings in
// config/settings.go. It is run by go generate ./config (in config/, so the files are one level up).
package main

import (
	"log"
	"os"
	"path/filepath"

	"calshim/config"
)

func main() {
	for name, text := range map[string][]byte{config.ExampleFile: config.ExampleYAML(),
		config.ReferenceFile: config.Reference()} {
		path := filepath.Join("..", name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(path, text, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
