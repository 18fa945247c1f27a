-- :AiqClear asks first: "No" leaves the conversation as it is, "Yes"
-- empties the panel and the server's history; the empty history's
-- placeholder goes away on the next question.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

local function turns()
  local conn = require("aiq.server").conn
  local result, err = conn:request_sync("chat/history", { sessionId = require("aiq.session").id() }, 120000)
  if err then
    error("chat/history: " .. err.message, 2)
  end
  return #result.turns
end

T.run(function()
  T.setup()
  vim.cmd("AiqAsk How many orders are there?")
  T.wait_turn()
  T.expect("There are 4 orders.", "the answer")
  local before = T.panel()

  T.answer_confirm(2)
  vim.cmd("AiqClear")
  T.eq(#T.asked, 1, "questions asked by :AiqClear")
  T.eq(T.asked[1].choices, "&Yes\n&No", "the buttons of :AiqClear")
  T.eq(T.asked[1].default, 2, "the default button of :AiqClear")
  -- turns() waits on the server, so a clear sent by mistake would have
  -- reached the panel by the time it returns.
  T.eq(turns(), 2, "the turns kept after answering No")
  T.eq(T.panel(), before, "the panel after answering No")

  T.answer_confirm(1)
  vim.cmd("AiqClear")
  T.wait("the panel to empty", function()
    return vim.deep_equal(T.panel(), { "" })
  end)
  T.eq(turns(), 0, "the turns after clearing")

  -- The history of the empty session is a placeholder, which the next
  -- question replaces.
  vim.cmd("AiqHistory")
  T.wait("the placeholder", function()
    return vim.deep_equal(T.panel(), { "_No questions yet in this session._" })
  end)
  vim.cmd("AiqAsk How many now?")
  T.eq(T.panel()[1], "## You", "the first line once a question is asked")
  T.wait_turn()
  T.truthy(not T.has("No questions yet"), "the placeholder is gone")
  T.eq(#T.errors(), 0, "error messages")
end)
