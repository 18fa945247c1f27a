-- Run after history.lua on the same home: the first command, :AiqClear,
-- reopens that conversation and shows it in the panel, scrolled to its
-- end, before it asks, without a word; No keeps it, and the next question
-- goes on with it, shown under it.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

T.run(function()
  T.setup()
  local seen, cursor_row, lines_then
  vim.fn.confirm = function()
    seen = T.panel()
    local win = vim.fn.bufwinid("aiq://chat")
    T.truthy(win ~= -1, "the panel is not open when :AiqClear asks")
    cursor_row = vim.api.nvim_win_get_cursor(win)[1]
    lines_then = #seen
    return 2
  end
  vim.cmd("AiqClear")
  T.wait(":AiqClear's question", function()
    return seen ~= nil
  end)
  T.eq(seen, T.COUNT_TURN, "the panel when :AiqClear asks")
  T.eq(cursor_row, lines_then, "the panel's cursor row: the conversation is scrolled to its end")

  vim.cmd("AiqAsk And how many are pending?")
  T.wait_turn()
  local want = vim.list_extend(vim.deepcopy(T.COUNT_TURN), {
    "", "## You", "And how many are pending?", "", "## aiq", "One is pending.",
  })
  T.eq(T.panel(), want, "the panel after the next question")
  T.eq(#T.notes, 0, "notifications")
end)
