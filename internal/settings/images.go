package settings

import (
	"path/filepath"
	"strings"

	"github.com/porchbot/porchbot/internal/fnimage"
)

// functionImages reads the function image allowlist and cache into s.
func (r *reader) functionImages(s *Settings) {
	for _, e := range strings.Split(r.get("PORCHBOT_FUNCTION_IMAGES"), ",") {
		if e = strings.TrimSpace(e); e != "" {
			s.FunctionImages = append(s.FunctionImages, e)
		}
	}
	if _, err := fnimage.ParseAllowlist(s.FunctionImages); err != nil {
		r.errorf("PORCHBOT_FUNCTION_IMAGES", "%v", err)
	}
	s.FunctionImageCache = r.get("PORCHBOT_FUNCTION_IMAGE_CACHE")
}

// FunctionImagePuller is the puller of the allowlisted function images
// (nil when the allowlist is empty: none run).
func (s *Settings) FunctionImagePuller() *fnimage.Puller {
	allow, err := fnimage.ParseAllowlist(s.FunctionImages)
	if err != nil || len(allow) == 0 {
		return nil // Parse reported a bad allowlist
	}
	cache := s.FunctionImageCache
	if cache == "" {
		cache = filepath.Join(s.DataDir, "function-images")
	}
	return &fnimage.Puller{Allow: allow, Cache: cache}
}
