package mcp_test

import (
	"context"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/rpc/mcp"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestSchemaResources: each source's schema card is a resource; reading
// one gives the tables and columns as the chat's prompt has them, and a
// source that cannot be reached is an error, never its password.
func TestSchemaResources(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	cs := f.connect(nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	list, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
		assert.Equal(t, "text/markdown", r.MIMEType)
	}
	assert.Equal(t, []string{"aiq://sources/db/schema", "aiq://sources/other/schema"}, sorted(uris))

	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "aiq://sources/db/schema"})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	card := res.Contents[0].Text
	assert.Contains(t, card, "# Schema of the source db")
	assert.Contains(t, card, "\norders(id int PK, status text NOT NULL) ~4 rows\n")
	assert.Contains(t, card, "SQLite")

	_, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "aiq://sources/nope/schema"})
	require.Error(t, err)
	res, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "aiq://sources/other/schema"})
	if err == nil {
		assert.NotContains(t, res.Contents[0].Text, testPassword)
	} else {
		assert.NotContains(t, err.Error(), testPassword)
	}
}

// TestResourcesFollowSources: a change to sources.yaml announces
// notifications/resources/list_changed, and the list follows it.
func TestResourcesFollowSources(t *testing.T) {
	f := newFixture(t, fixtureOptions{server: mcp.Options{WatchInterval: 20 * time.Millisecond}})
	changed := make(chan struct{}, 10)
	cs := f.connect(&sdk.ClientOptions{ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
		changed <- struct{}{}
	}})
	more := dbtest.SQLite(t)
	more.Name = "sales"
	f.writeSources(f.src, sessionio.Source{Name: more.Name, Type: more.Type, Database: more.Database})
	select {
	case <-changed:
	case <-time.After(waitTimeout):
		t.Fatal("no notifications/resources/list_changed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	waitFor(t, func() bool {
		list, err := cs.ListResources(ctx, nil)
		require.NoError(t, err)
		var uris []string
		for _, r := range list.Resources {
			uris = append(uris, r.URI)
		}
		return assert.ObjectsAreEqual([]string{"aiq://sources/db/schema", "aiq://sources/sales/schema"}, sorted(uris))
	})
}
