package dashboard

import (
	"context"
	"slices"
	"testing"

	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/hub/hubtest"
)

// TestDashboardsFoundAndDuplicatesClosed: of the labelled issues, only
// the bot's with a dashboard body are dashboards (a person's copy, another
// bot's or a pull request are not), lowest number first; duplicates are
// closed as not planned, a closed one is left as it is. Over the value
// fake: one listing, one edit per open duplicate.
func TestDashboardsFoundAndDuplicatesClosed(t *testing.T) {
	bot := hub.User{Login: "porchbot[bot]", Type: "Bot"}
	body := dashboardMarker + "\nthe packages\n"
	fake := &hubtest.Fake{Issues: []hub.Issue{
		{Number: 9, Title: Title, Body: body, State: "open", User: bot, Labels: []string{Label}},
		{Number: 4, Title: Title, Body: body, State: "open", User: bot, Labels: []string{Label}},
		{Number: 5, Title: Title, Body: body, State: "open", User: hub.User{Login: "mallory", Type: "User"}, Labels: []string{Label}},
		{Number: 6, Title: Title, Body: "not a dashboard", State: "open", User: bot, Labels: []string{Label}},
		{Number: 7, Title: Title, Body: body, State: "closed", User: bot, Labels: []string{Label}},
		{Number: 8, Title: Title, Body: body, State: "open", User: bot},
	}}
	ctx := context.Background()
	all, err := listDashboards(ctx, fake, "acme", "catalog", bot.Login)
	if err != nil {
		t.Fatal(err)
	}
	var numbers []int
	for _, is := range all {
		numbers = append(numbers, is.Number)
	}
	if !slices.Equal(numbers, []int{4, 7, 9}) {
		t.Fatalf("dashboards %v, want the bot's labelled ones with a dashboard body: [4 7 9]", numbers)
	}
	closed, err := closeDuplicates(ctx, fake, "acme", "catalog", all[1:])
	if err != nil || !slices.Equal(closed, []int{9}) {
		t.Fatalf("closed %v (%v), want [9]: #7 is closed already", closed, err)
	}
	if got, _ := fake.GetIssue(ctx, "acme", "catalog", 9); got.State != "closed" || got.StateReason != "not_planned" {
		t.Fatalf("#9 %s (%s), want closed as not planned", got.State, got.StateReason)
	}
	if n := fake.Count("ListIssues") + fake.Count("EditIssue"); n != 2 {
		t.Fatalf("%d calls (%v), want one listing and one edit", n, fake.Calls)
	}
}
