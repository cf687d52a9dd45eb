// Package mdquote quotes text that users control (release notes,
// descriptions, commit messages, package and branch names, function
// results, configuration errors) for the markdown porchbot writes: pull
// request bodies, comments, check-run output, release notes and the
// dashboard.
//
// Quoted text is shown, never interpreted: placed where porchbot's
// templates put it, it cannot open or close HTML tags or comments
// (<details>, <!--), fences, tables or headings of the markdown around it,
// cannot notify anyone (@user, @org/team) and cannot cross-reference
// (#123, owner/repo#123, GH-123). URLs in quoted text stay text: they are
// not turned into links.
//
// Where each form goes:
//
//   - Code: inline code, anywhere inline text goes except a table cell.
//   - CodeCell: inline code in a table cell.
//   - Cell: markdown porchbot composed, as one table cell.
//   - Text: plain text, one line, anywhere inline text goes (table cells too).
//   - HTML: text on one line inside porchbot's own HTML (a <summary>).
//   - Fence: a fenced code block of any text; it starts and ends its own
//     lines and goes at the top level of the document (or in a <details>
//     block after its blank line).
//   - Quiet: markdown porchbot composed itself that may carry words of
//     others: mentions outside code are defused (porchbot's own #12
//     references stay).
//   - Path: a path or ref in the URL of a link porchbot composed.
//
// Truncate and TruncateRunes cut raw text before it is quoted (so a cut
// never splits a rune or an escape) and mark the cut.
//
// The package imports nothing of the project: engines and the bot both
// use it.
package mdquote
