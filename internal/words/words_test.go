package words_test

import (
	"testing"

	"github.com/porchbot/porchbot/internal/words"
)

func TestWords(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{words.Count(0, "file", "files"), "0 files"},
		{words.Count(1, "file", "files"), "1 file"},
		{words.Count(3, "field", "fields"), "3 fields"},
		{words.Plural(1, "was", "were"), "was"},
		{words.Plural(2, "was", "were"), "were"},
		{words.ShortSHA("0123456789abcdef0123456789abcdef01234567"), "0123456"},
		{words.ShortSHA("abc"), "abc"},
		{words.ShortSHA(""), ""},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
