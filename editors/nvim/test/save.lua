-- :AiqSave PATH saves the session there and gives the CLI's hint; the Go
-- test checks the file, then load.lua opens it in a new Neovim.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

T.run(function()
  T.setup()
  vim.cmd("AiqAsk How many orders are there?")
  T.wait_turn()
  local path = T.env.AIQ_TEST_TMP .. "/saved.json"
  vim.cmd("AiqSave " .. path)
  T.wait("the saved message", function()
    return T.note_matching("Run 'aiq -s " .. path .. "' to continue.") ~= nil
  end, 5000)
  T.eq(vim.fn.filereadable(path), 1, "the saved file is readable")
  T.eq(#T.errors(), 0, "error messages")
end)
