package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/porchbot/porchbot/internal/fnimage"
)

// functionImagePuller is `porchbot render --function-images`' puller:
// the images listed, their programs kept in cache (default: the user's
// cache directory).
func functionImagePuller(list, cache string) (*fnimage.Puller, error) {
	allow, err := fnimage.ParseAllowlist(strings.Split(list, ","))
	if err != nil {
		return nil, fmt.Errorf("--function-images: %w", err)
	}
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("--function-image-cache is needed: %w", err)
		}
		cache = filepath.Join(dir, "porchbot", "function-images")
	}
	return &fnimage.Puller{Allow: allow, Cache: cache}, nil
}
