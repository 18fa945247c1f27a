-- Writes go through chat/confirm: Reject, Allow once, then Esc (0), which
-- rejects; a rejected write is reported once. The Go test checks the rows
-- in SQLite.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

local function ask(question, want)
  local before = #T.asked
  vim.cmd("AiqAsk " .. question)
  T.wait_turn()
  T.eq(#T.asked, before + 1, "confirmations asked for: " .. question)
  for _, text in ipairs(want) do
    T.expect(text, question)
  end
end

T.run(function()
  T.setup()
  T.answer_confirm(3, 1, 0)
  ask("delete the shipped orders", { "✗ You declined this statement, so it did not run.", "Not deleted." })
  local _, reported = T.panel_text():gsub("did not run", "")
  T.eq(reported, 1, "times the panel reports the rejected write")
  local asked = T.asked[1]
  T.truthy(asked.msg:find("DELETE FROM orders WHERE status = 'shipped'", 1, true), "the dialog shows the SQL: " .. asked.msg)
  T.truthy(asked.msg:find("DELETE removes rows from a table.", 1, true), "the dialog shows the reason: " .. asked.msg)
  T.eq(asked.choices, "Allow &once\nAllow &always\n&Reject", "the dialog's buttons: a hotkey each")
  T.eq(asked.default, 3, "the dialog's default button")

  ask("delete the pending orders", { "✋ Allowed once", "✓ 1 row affected", "Deleted." })
  require("aiq.chat").clear()
  ask("delete the delivered orders", { "✗ You declined this statement, so it did not run." })
  T.truthy(not T.has("✋"), "a rejected write is reported once, by its result")
  T.truthy(asked.msg:find('"Allow always" covers only this: Allow DELETE on orders, up to 10 rows at a time, for this conversation.', 1, true),
    "the dialog says what always covers: " .. asked.msg)

  -- Allow always (button 2) covers the next DELETE on orders with a WHERE;
  -- a DELETE without one asks, with no "always" on offer.
  T.answer_confirm(2, 2)
  ask("delete the cancelled orders", { "✋ Allowed: Allow DELETE on orders, up to 10 rows at a time, for this conversation" })
  local n = #T.asked
  vim.cmd("AiqAsk delete order 1")
  T.wait_turn()
  T.eq(#T.asked, n, "the same shape asked again")
  T.expect("✓ 1 row affected", "the allowed DELETE")
  ask("delete every order", { "✗ You declined this statement, so it did not run." })
  local last = T.asked[#T.asked]
  T.eq(last.choices, "Allow &once\n&Reject", "no always for a DELETE without WHERE")
  T.eq(last.default, 2, "Reject is the default")
  T.truthy(last.msg:find("It asks every time", 1, true), "the dialog says it asks every time: " .. last.msg)
  T.truthy(last.msg:match("This DELETE would remove [%d,]+ rows"), "the dialog says how many rows: " .. last.msg)

  -- :AiqAllowances opens a floating window, not :messages.
  local function float_text()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= "" then
        return table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), "\n"), win
      end
    end
  end
  vim.cmd("AiqAllowances")
  T.wait("the allowances' window", function()
    local text = float_text()
    return text and text:find("  a1: Allow DELETE on orders, up to 10 rows at a time, for this conversation", 1, true) ~= nil
  end)
  local _, win = float_text()
  T.eq(vim.api.nvim_get_current_win(), win, "the allowances' window has the focus")
  T.truthy(not T.messages():find("Allow DELETE on orders", 1, true), "the allowances are not in :messages")
  vim.api.nvim_feedkeys("q", "x", false)
  T.truthy(not vim.api.nvim_win_is_valid(win), "q closes the allowances' window")
  T.eq(vim.fn.getcompletion("AiqAllowances ", "cmdline"), { "revoke" }, "the completion of :AiqAllowances")
  T.eq(vim.fn.getcompletion("AiqAllowances revoke ", "cmdline"), { "a1", "all" }, "the completion of revoke: the ids and all")
  T.eq(vim.fn.getcompletion("AiqAllowances revoke a", "cmdline"), { "a1", "all" }, "the completion of revoke a")
  vim.cmd("AiqAllowances revoke a1")
  T.wait("the revoke", function()
    local text = float_text()
    return text and text:find('Revoked a1.\nNo "Allow always" is in force', 1, true) ~= nil
  end)
  T.eq(vim.fn.getcompletion("AiqAllowances revoke ", "cmdline"), { "all" }, "no id left to complete")
  T.eq(#T.errors(), 0, "error messages")
end)
