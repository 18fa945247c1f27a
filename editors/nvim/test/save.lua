-- :AiqSave PATH saves a copy there and gives the CLI's hint; the
-- conversation goes on in its own file, so that :AiqClear empties that one
-- and never the copy. The Go test checks both files, then load.lua opens
-- the copy in a new Neovim.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

T.run(function()
  T.setup()
  vim.cmd("AiqAsk How many orders are there?")
  T.wait_turn()
  local path = T.env.AIQ_TEST_TMP .. "/saved.json"
  vim.cmd("AiqSave " .. path)
  T.wait("the saved message", function()
    return T.note_matching("aiq: saved a copy to ") ~= nil
  end)
  local messages = T.messages()
  T.truthy(messages:find("Saved a copy to " .. path, 1, true), ":messages names the copy: " .. messages)
  T.truthy(messages:find("This conversation goes on in " .. T.env.AIQ_TEST_HOME .. "/sessions/session_", 1, true),
    ":messages names the session's own file: " .. messages)
  T.truthy(messages:find("Run 'aiq -s " .. path .. "' to continue.", 1, true), ":messages gives the CLI's hint: " .. messages)
  T.eq(vim.fn.filereadable(path), 1, "the saved file is readable")

  -- A file already there is kept, as :write keeps it, unless ! is given.
  local other = T.env.AIQ_TEST_TMP .. "/other.json"
  vim.fn.writefile({ "not yours to replace" }, other)
  vim.cmd("AiqSave " .. other)
  T.wait("the refusal", function()
    return #T.errors() > 0
  end)
  T.eq(T.errors(), { "aiq: other.json exists (add ! to replace it)" }, "one line that says what to do, as :write says it")
  T.eq(vim.fn.readfile(other), { "not yours to replace" }, "the file is kept")
  T.notes = {}
  vim.cmd("AiqSave! " .. other)
  T.wait("the saved message", function()
    return T.note_matching("aiq: saved a copy to other.json") ~= nil
  end)
  T.truthy(vim.fn.join(vim.fn.readfile(other), "\n"):find("How many orders are there?", 1, true), "! replaces it")

  T.answer_confirm(1)
  vim.cmd("AiqClear")
  T.wait("the clear", function()
    return T.note_matching("the conversation is cleared") ~= nil
  end)
  T.eq(#T.errors(), 0, "error messages")
end)
