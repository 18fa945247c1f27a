-- The model's reasoning shows under a "Thinking" line, folded once the
-- answer begins, and :AiqModel, with completion from the endpoint's
-- models, picks the model of the session. The Go test checks which model
-- answered the second question.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

-- panel_window is the window that shows the chat panel.
local function panel_window()
  local buf = require("aiq.chat").buffer()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return win
    end
  end
end

T.run(function()
  T.setup()
  vim.cmd("AiqAsk How many rows?")
  T.wait_turn()
  T.expect("There are three rows.", "the answer, without the reasoning")
  local lines = T.panel()
  local at
  for i, line in ipairs(lines) do
    if line == "💭 Thinking" then
      at = i
    end
  end
  T.truthy(at, "no Thinking line in " .. vim.inspect(lines))
  T.eq(lines[at + 1], "> Counting the rows.", "the reasoning, quoted under it")
  T.truthy(not T.has("<think>"), "the tags are not shown")
  local win = panel_window()
  T.truthy(win, "the panel's window")
  T.truthy(vim.api.nvim_win_call(win, function()
    return vim.fn.foldclosed(at)
  end) == at, "the reasoning is folded")

  -- :AiqModel alone offers the models, marking config.yaml's and the session's.
  local select = vim.ui.select
  local function offered()
    local items
    vim.ui.select = function(list, opts, on_choice)
      items = vim.tbl_map(opts.format_item, list)
      on_choice(nil)
    end
    vim.cmd("AiqModel")
    T.wait("the models offered", function()
      return items ~= nil
    end, 10000)
    vim.ui.select = select
    return items
  end
  T.eq(offered(), { "test-model (config.yaml, current)", "b-model" }, "the models offered")

  T.eq(vim.fn.getcompletion("AiqModel b", "cmdline"), { "b-model" }, "the completion of :AiqModel")
  vim.cmd("AiqModel b-model")
  T.wait("the model to be set", function()
    return T.note_matching("the session now uses the model b-model")
  end, 10000)
  T.eq(offered(), { "test-model (config.yaml)", "b-model (current)" }, "the models offered after the pick")
  vim.cmd("AiqAsk And now?")
  T.wait_turn()
  T.expect("From b.", "the answer of the picked model")
end)
