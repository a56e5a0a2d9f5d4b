import { execFileSync } from 'node:child_process';
import { Command } from 'commander';
import { bashCompletion } from './bash-completion';
import { completionTree } from './command-tree';

/** A small program shaped like tape's: global options, nested commands, file arguments. */
function program(): Command {
  const root = new Command('tape')
    .option('-k, --keypair <path>', 'wallet')
    .option('--json', 'json');
  root
    .command('deploy <index_html>')
    .option('--prune', 'prune')
    .option('-u, --url <rpc_url>', 'rpc');
  const network = root.command('network');
  network.command('deploy').option('--program-keypair <file>', 'key');
  network.command('fund <pubkey>').option('--sol <n>', 'SOL');
  root.command('config').command('set <key> <value>');
  return root;
}

/** What bash's programmable completion offers for `words` (the last one is being typed). */
function complete(script: string, words: string[]): string[] {
  const out = execFileSync(
    'bash',
    [
      '-c',
      `${script}\nCOMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); _tape; printf '%s\\n' "\${COMPREPLY[@]}"`,
      'bash',
      ...words,
    ],
    { encoding: 'utf8', cwd: __dirname },
  );
  return out.split('\n').filter((l) => l !== '');
}

describe('completion scripts', () => {
  const tree = completionTree(program(), {
    arguments: { 'config set': { key: ['url', 'gateway'] } },
    options: { '--url': ['devnet', 'testnet'] },
  });

  it('reads every command, option and argument from the registered program', () => {
    expect(tree.subcommands.map((s) => s.path.join(' '))).toEqual(['deploy', 'network', 'config']);
    const deploy = tree.subcommands[0];
    expect(deploy.options.map((o) => o.names)).toEqual([
      ['--prune'],
      ['-u', '--url'],
      ['-h', '--help'],
    ]);
    expect(deploy.options[1].value).toEqual({ kind: 'words', words: ['devnet', 'testnet'] });
    expect(deploy.arguments).toEqual([{ kind: 'file' }]);
    expect(tree.options.map((o) => o.names[o.names.length - 1])).toEqual([
      '--keypair',
      '--json',
      '--version',
      '--help',
    ]);
    expect(tree.options[0].value).toEqual({ kind: 'file' });
  });

  it('bash completes commands, sub-commands, options, option values and arguments', () => {
    const script = bashCompletion(tree, '0.0.0');
    expect(complete(script, ['tape', 'de'])).toEqual(['deploy']);
    expect(complete(script, ['tape', 'network', ''])).toEqual(['deploy', 'fund']);
    expect(complete(script, ['tape', '-k', 'w.json', 'net'])).toEqual(['network']);
    expect(complete(script, ['tape', 'deploy', '--p'])).toEqual(['--prune']);
    expect(complete(script, ['tape', 'deploy', '-u', ''])).toEqual(['devnet', 'testnet']);
    expect(complete(script, ['tape', 'config', 'set', ''])).toEqual(['url', 'gateway']);
    expect(complete(script, ['tape', 'config', 'set', 'url', ''])).toEqual([]);
    // A file argument and a file option complete names from the working directory.
    expect(complete(script, ['tape', 'deploy', 'completion-scripts.sp'])).toEqual([
      'completion-scripts.spec.ts',
    ]);
    expect(complete(script, ['tape', 'network', 'deploy', '--program-keypair', 'bash-c'])).toEqual([
      'bash-completion.ts',
    ]);
    // After `network fund`, its own options, not the root's commands.
    expect(complete(script, ['tape', 'network', 'fund', 'K', '--'])).toEqual(['--sol', '--help']);
  });
});
