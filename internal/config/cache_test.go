package config

import (
	"fmt"
	"sync"
	"testing"
)

func TestCache(t *testing.T) {
	var c Cache
	if cfg, sha := c.Good("acme/catalog"); cfg != nil || sha != "" {
		t.Fatalf("empty cache: %v %q", cfg, sha)
	}
	one, two := Default(), Default()
	c.Store("acme/catalog", "sha1", one)
	c.Store("acme/catalog", "sha2", nil) // a broken config is never stored
	if cfg, sha := c.Good("Acme/Catalog"); cfg != one || sha != "sha1" {
		t.Errorf("Good = %p %q, want the first config at sha1", cfg, sha)
	}
	c.Store("ACME/catalog", "sha3", two)
	if cfg, sha := c.Good("acme/catalog"); cfg != two || sha != "sha3" {
		t.Errorf("Good = %p %q, want the second config at sha3", cfg, sha)
	}
	if cfg, _ := c.Good("acme/other"); cfg != nil {
		t.Error("another repository shares the entry")
	}
	c.Forget("acme/catalog")
	if cfg, _ := c.Good("acme/catalog"); cfg != nil {
		t.Error("Forget kept the entry")
	}
}

func TestCacheConcurrent(t *testing.T) {
	var c Cache
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Each goroutine owns its repository (so a Forget by another
			// cannot explain a miss); all share the map.
			repo := fmt.Sprintf("o/r%d", i)
			for j := 0; j < 200; j++ {
				c.Store(repo, fmt.Sprint(j), Default())
				if cfg, sha := c.Good(repo); cfg == nil || sha != fmt.Sprint(j) {
					t.Errorf("lost a stored config: %v %q", cfg, sha)
					return
				}
				if j%50 == 0 {
					c.Forget(repo)
				}
			}
		}(i)
	}
	wg.Wait()
}

func TestCacheLastGoodIsPerBrokenHead(t *testing.T) {
	var c Cache
	good := Default()
	c.Store("acme/catalog", "good1", good)
	if _, _, ok := c.LastGood("acme/catalog", "good1"); ok {
		t.Error("a good head's own config is not a derived last good one")
	}
	c.StoreLastGood("acme/catalog", "broken1", "good1", good)
	if cfg, sha, ok := c.LastGood("Acme/Catalog", "broken1"); !ok || cfg != good || sha != "good1" {
		t.Errorf("LastGood = %p %q %v", cfg, sha, ok)
	}
	if _, _, ok := c.LastGood("acme/catalog", "broken2"); ok {
		t.Error("another head must walk its own history")
	}
	if cfg, sha := c.Good("acme/catalog"); cfg != good || sha != "good1" {
		t.Errorf("Good after StoreLastGood = %p %q", cfg, sha)
	}
}
