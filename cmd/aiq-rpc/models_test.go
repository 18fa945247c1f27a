package main

import (
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// TestModelPickerJSONRPC: models/list asks the endpoint's GET /models,
// the configured model first; session/setModel picks one for the session,
// and an id the endpoint does not list is -32602 naming those it does.
func TestModelPickerJSONRPC(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "From b."}, llmtest.Step{Text: "From test."})
	srv.SetModels("zeta-model", "test-model", "b-model")
	h := newHome(t).withModel(t, srv.URL)
	p := startProc(t, h, procOptions{})
	p.initialize(nil)
	var info conversation.Info
	p.client.Result("session/new", nil, &info)

	var list conversation.ModelList
	p.client.Result("models/list", map[string]string{"sessionId": info.SessionID}, &list)
	assert.Equal(t, []string{"test-model", "b-model", "zeta-model"}, list.Models)
	assert.Equal(t, "test-model", list.Configured)
	assert.Equal(t, "test-model", list.Current)
	assert.Empty(t, list.Warning)

	p.client.Result("session/setModel", map[string]string{"sessionId": info.SessionID, "model": "b-model"}, &list)
	assert.Equal(t, "b-model", list.Current)
	var ans conversation.Answer
	p.client.Result("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "hi?"}, &ans)
	assert.Equal(t, "b-model", srv.Requests()[0].Model, "the session's model answers")

	resp := p.client.Call("session/setModel", map[string]string{"sessionId": info.SessionID, "model": "gpt-9"})
	assert.Equal(t, -32602, errorCode(t, resp))
	assert.Contains(t, resp.Error.Message, "test-model, b-model, zeta-model")

	var other conversation.Info
	p.client.Result("session/new", nil, &other)
	p.client.Result("chat/turn", map[string]any{"sessionId": other.SessionID, "query": "hi?"}, &ans)
	assert.Equal(t, "test-model", srv.Requests()[1].Model, "another session keeps the configured model")
	assert.NotContains(t, readFile(t, h.Dir+"/config/config.yaml"), "b-model", "config.yaml is left as it is")

	for name, set := range map[string]func(){
		"not served": func() { srv.SetModelsAnswer(http.StatusNotFound, `{"error":{"message":"no"}}`) },
		"garbage":    func() { srv.SetModelsAnswer(http.StatusOK, `<html>hello</html>`) },
		"empty":      func() { srv.SetModelsAnswer(http.StatusOK, `{"data":[]}`) },
	} {
		set()
		p.client.Result("models/list", nil, &list)
		assert.Equal(t, []string{"test-model"}, list.Models, name)
		assert.Contains(t, list.Warning, "only the configured model is offered", name)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// TestModelPickerACP: the ACP agent offers the models as the "model"
// config option, and picking one is used by the next prompt.
func TestModelPickerACP(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "From b."})
	srv.SetModels("test-model", "b-model")
	h := newHome(t).withModel(t, srv.URL)
	a := startACP(t, h)
	a.call("initialize", map[string]any{"protocolVersion": 1})
	res, _ := a.call("session/new", map[string]any{"cwd": "/", "mcpServers": []any{}})
	var sess struct {
		SessionID     string `json:"sessionId"`
		ConfigOptions []struct {
			ID           string `json:"id"`
			Category     string `json:"category"`
			CurrentValue string `json:"currentValue"`
			Options      []struct {
				Value string `json:"value"`
			} `json:"options"`
		} `json:"configOptions"`
	}
	require.NoError(t, json.Unmarshal(res, &sess))
	var values []string
	for _, o := range sess.ConfigOptions {
		if o.ID == "model" {
			assert.Equal(t, "model", o.Category)
			assert.Equal(t, "test-model", o.CurrentValue)
			for _, v := range o.Options {
				values = append(values, v.Value)
			}
		}
	}
	assert.Equal(t, []string{"test-model", "b-model"}, values)
	a.call("session/set_config_option", map[string]any{"sessionId": sess.SessionID, "configId": "model", "value": "b-model"})
	a.call("session/prompt", map[string]any{"sessionId": sess.SessionID,
		"prompt": []any{map[string]string{"type": "text", "text": "hi?"}}})
	assert.Equal(t, "b-model", srv.Requests()[0].Model)
}
