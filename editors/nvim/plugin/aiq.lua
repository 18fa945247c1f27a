-- aiq.nvim: ask your SQL database questions from Neovim, through aiq-rpc.
-- This file only defines the commands; the plugin loads on first use.
if vim.g.loaded_aiq then
  return
end
vim.g.loaded_aiq = true

if vim.fn.has("nvim-0.7") == 0 then
  vim.api.nvim_echo({
    { "aiq.nvim needs Neovim 0.7 or newer; its commands are not defined. Upgrade Neovim to use it.", "ErrorMsg" },
  }, true, {})
  return
end

local function command(name, run, opts)
  vim.api.nvim_create_user_command(name, function(o)
    run(require("aiq"), o)
  end, opts or {})
end

local function complete(fn)
  return function(lead)
    return require("aiq")[fn](lead)
  end
end

command("AiqAsk", function(aiq, o)
  if o.range > 0 then
    aiq.ask(o.args, o.line1, o.line2)
  else
    aiq.ask(o.args)
  end
end, { nargs = "*", range = true, desc = "Ask aiq a question, about the selection if any" })

command("AiqHistory", function(aiq)
  aiq.history()
end, { desc = "Show the aiq conversation in the chat panel" })

command("AiqClear", function(aiq)
  aiq.clear()
end, { desc = "Clear the aiq conversation (asks first)" })

command("AiqAllowances", function(aiq, o)
  aiq.allowances(o.args)
end, {
  nargs = "*",
  complete = function(lead, cmdline)
    return require("aiq").complete_allowances(lead, cmdline)
  end,
  desc = 'List what "Allow always" covers in the aiq session; revoke ID (or all) ends one',
})

command("AiqSave", function(aiq, o)
  aiq.save(o.args, o.bang)
end, { nargs = "?", bang = true, complete = "file", desc = "Save the aiq session, to a path if given (! replaces a file)" })

command("AiqLoad", function(aiq, o)
  aiq.load(o.args)
end, { nargs = "?", complete = complete("complete_sessions"), desc = "Load an aiq session file" })

command("AiqSessions", function(aiq)
  aiq.sessions()
end, { desc = "Pick a saved aiq session to load" })

command("AiqSource", function(aiq, o)
  aiq.source(o.args)
end, { nargs = "?", complete = complete("complete_sources"), desc = "Set the data source of the aiq session" })

command("AiqModel", function(aiq, o)
  aiq.model(o.args)
end, { nargs = "?", complete = complete("complete_models"), desc = "Set the model of the aiq session" })

command("AiqCancel", function(aiq)
  aiq.cancel()
end, { desc = "Cancel the running aiq question" })

command("AiqRun", function(aiq, o)
  if o.range > 0 then
    aiq.run(o.line1, o.line2)
  else
    aiq.run()
  end
end, { range = true, desc = "Run the SQL under the cursor, or the selected lines, without the model" })

command("AiqRerun", function(aiq)
  aiq.rerun()
end, { desc = "Run the statement under the cursor in the aiq panel (or the last one) again" })

command("AiqExport", function(aiq, o)
  aiq.export(o.args, o.bang)
end, { nargs = 1, bang = true, complete = "file", desc = "Export every row of the result under the cursor (or the last) to a .csv, .json or .md file" })
