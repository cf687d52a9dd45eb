package commands

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/porchbot/porchbot/internal/mdquote"
)

// MaxReplyLength bounds the reply (GitHub refuses comments over 65 536
// characters).
const MaxReplyLength = 60_000

// status is a command's outcome.
type status int

const (
	statusOK status = iota
	statusFailed
	statusRefused
)

func (s status) String() string {
	switch s {
	case statusFailed:
		return "failed"
	case statusRefused:
		return "refused"
	}
	return "ok"
}

func (s status) icon() string {
	switch s {
	case statusFailed:
		return "❌"
	case statusRefused:
		return "🚫"
	}
	return "✅"
}

// result is one command's outcome, as the reply shows it.
type result struct {
	cmd    Command
	status status
	// text is markdown.
	text string
	// help asks for the command table after the results.
	help bool
}

// describeParseError is the message of a line that could not be parsed.
func describeParseError(e *ParseError) string {
	msg := mdquote.Quiet(e.Message)
	if len(e.Suggestions) > 0 {
		s := make([]string, len(e.Suggestions))
		for i, v := range e.Suggestions {
			s[i] = mdquote.Code(Prefix + " " + v)
		}
		msg += ". Did you mean " + strings.Join(s, " or ") + "?"
	} else if e.Unknown != "" {
		msg += "; the commands are listed below."
	}
	return msg
}

// renderReply is the one reply to a comment: a line per command with its
// outcome, then the command table if a command asked for it.
func renderReply(author string, results []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "@%s\n", author)
	help, helpShown := false, false
	for _, r := range results {
		text := r.cmd.Text
		if text == "" {
			text = Prefix + " " + r.cmd.Verb
		}
		fmt.Fprintf(&b, "\n%s %s\n%s\n", r.status.icon(), mdquote.Code(text), r.text)
		help = help || r.help
		helpShown = helpShown || r.status == statusOK && r.cmd.Verb == "help"
	}
	if help && !helpShown {
		b.WriteString("\nporchbot's commands:\n\n" + HelpMarkdown())
	}
	out := b.String()
	if len(out) > MaxReplyLength {
		const cut = "\n\n… (reply cut: it was too long for one comment)\n"
		out = mdquote.Truncate(out, MaxReplyLength+len(cut), cut)
	}
	return out
}

// replyMarkerPrefix starts the hidden line by which a reply names the
// comment it answers; the resync reads it to find comments with no reply.
const replyMarkerPrefix = "<!-- porchbot:reply-to "

// replyMarker is the hidden line naming the comment a reply answers.
func replyMarker(commentID int64) string {
	if commentID == 0 {
		return ""
	}
	return fmt.Sprintf("\n%s%d -->\n", replyMarkerPrefix, commentID)
}

// repliedTo is the comment id a reply's marker names (0 when none).
func repliedTo(body string) int64 {
	i := strings.LastIndex(body, replyMarkerPrefix)
	if i < 0 {
		return 0
	}
	rest := body[i+len(replyMarkerPrefix):]
	digits, _, ok := strings.Cut(rest, " -->")
	if !ok {
		return 0
	}
	id, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || id <= 0 {
		return 0
	}
	return id
}

// internalErrorText is the commenter's message for porchbot's own fault:
// it names what the log line carries (the delivery id, else the comment
// id) so that the operators can find it.
func internalErrorText(ev CommentEvent) string {
	ref := fmt.Sprintf("comment id %d", ev.CommentID)
	if ev.DeliveryID != "" {
		ref = fmt.Sprintf("delivery id %s (comment id %d)", mdquote.Code(ev.DeliveryID), ev.CommentID)
	}
	return "internal error: this is porchbot's fault, not yours. It was logged with " + ref +
		"; try again, or give that id to the bot's operators."
}

// takeoverNote tells the commenter that a first attempt, claimed at
// claimed, got no answer and this reply comes from a second one: what the
// first attempt did before it stopped may already be there.
func takeoverNote(claimed time.Time) string {
	if claimed.IsZero() {
		return ""
	}
	return fmt.Sprintf("\n_A first attempt at these commands started at %s UTC and never answered (the porchbot process running it stopped); porchbot ran them again. Anything the first attempt had already done is kept._\n",
		claimed.UTC().Format("2006-01-02 15:04"))
}
