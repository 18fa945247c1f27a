-- A new Neovim loads the saved session: :AiqLoad shows its history, the
-- SQL and its rows included, and warns that its source is gone; completion
-- offers the home's session files; :AiqSessions picks one; :AiqSource sets
-- a source; the next turn continues the loaded conversation.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

-- The SQL that ran and its table show as they did live.
local want = T.COUNT_TURN

local function wait_history()
  T.wait("the loaded history in the panel", function()
    return vim.deep_equal(T.panel(), want)
  end)
end

T.run(function()
  T.setup()
  local saved = T.env.AIQ_TEST_TMP .. "/saved.json"
  vim.cmd("AiqLoad " .. saved)
  wait_history()
  local warning = T.note_matching("aiq: no source 'db' here: pick one with :AiqSource")
  T.truthy(warning and warning.level == vim.log.levels.WARN, "a warning that the source is not configured")

  -- Completion lists the files of <home>/sessions, as the server says.
  local copy = T.env.AIQ_TEST_HOME .. "/sessions/copy.json"
  T.eq(vim.fn.getcompletion("AiqLoad ", "cmdline"), { copy }, "the completion of :AiqLoad")
  T.eq(vim.fn.getcompletion("AiqSource ", "cmdline"), { "other" }, "the completion of :AiqSource")

  -- :AiqSessions offers the saved sessions; picking one loads it.
  require("aiq.chat").clear()
  local offered
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(opts.format_item, items)
    on_choice(items[1], 1)
  end
  vim.cmd("AiqSessions")
  wait_history()
  T.truthy(offered and #offered == 1, "the sessions offered: " .. vim.inspect(offered))
  T.truthy(offered[1]:find("^%d%d%d%d%-%d%d%-%d%d %d%d:%d%d  How many orders are there%?  %(1 turn%)$"),
    "a session is one line, with its time and first question: " .. offered[1])
  local label = require("aiq.session").label({
    updated = "2026-11-22T09:15:02Z", turns = 2, firstQuestion = "what does this do?\n\n```sql\nSELECT 1\n```",
  })
  T.eq(label, "2026-11-22 09:15  what does this do? ```sql SELECT 1 ```  (2 turns)", "a question with a selection on one line")
  local bare = vim.fn.tempname() .. ".json"
  vim.fn.writefile({ "{}" }, bare)
  vim.loop.fs_utime(bare, 1763802900, 1763802900) -- 2025-11-22 09:15 UTC
  label = require("aiq.session").label({ path = bare, turns = 0, firstQuestion = "" })
  T.eq(label, "2025-11-22 09:15  " .. vim.fn.fnamemodify(bare, ":t") .. " (no question yet)  (0 turns)",
    "a file without times or questions: its modification time and name")

  -- Pick the source from the list, then ask on: the model sees the
  -- earlier turn.
  offered = nil
  vim.cmd("AiqSource")
  T.wait("the list of sources", function()
    return offered ~= nil
  end)
  T.eq(offered, { "other (sqlite) [staging]", "(no database)" }, "the sources offered, with their labels")
  T.wait("the source to be set", function()
    return T.note_matching("the session now uses other (sqlite)") ~= nil
  end)
  vim.cmd("AiqAsk And how many are pending?")
  T.wait_turn()
  T.expect("One is pending.", "the answer")
  T.eq(#T.errors(), 0, "error messages")
end)
