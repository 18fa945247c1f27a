package acp

import (
	"context"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// configModel is the id of the session config option that picks the
// model among those the endpoint serves.
const configModel = "model"

// modelListWait bounds the wait for the endpoint's list of models when a
// session opens: the session does not wait longer for its picker.
const modelListWait = 3 * time.Second

// modelOption offers the endpoint's models as a config option; nil
// without a configured model.
func (a *Agent) modelOption(ctx context.Context, s *session) *sdk.SessionConfigOption {
	ctx, cancel := context.WithTimeout(ctx, modelListWait)
	defer cancel()
	list, err := a.ws.Models(ctx, s.wsID)
	if err != nil {
		return nil
	}
	if list.Warning != "" {
		a.log.Info("list models", "warning", list.Warning)
	}
	var values sdk.SessionConfigSelectOptionsUngrouped
	for _, m := range list.Models {
		v := sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m), Name: m}
		if m == list.Configured {
			v.Description = sdk.Ptr("the model of config.yaml")
		}
		values = append(values, v)
	}
	opt := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(list.Current), sdk.SessionConfigSelectOptions{Ungrouped: &values})
	opt.Select.Id, opt.Select.Name = configModel, "Model"
	opt.Select.Category = sdk.Ptr(sdk.SessionConfigOptionCategoryModel)
	opt.Select.Description = sdk.Ptr("The model that answers in this session; config.yaml is left as it is")
	return &opt
}

// setModel picks the session's model.
func (a *Agent) setModel(ctx context.Context, choice *sdk.SetSessionConfigOptionValueId) (any, error) {
	s, err := a.session(choice.SessionId)
	if err != nil {
		return nil, err
	}
	if _, err := a.ws.SetModel(ctx, s.wsID, string(choice.Value)); err != nil {
		return nil, err
	}
	_, options := a.sourceChoices(ctx, s)
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: options}, nil
}
