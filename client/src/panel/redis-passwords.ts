// A typed wrapper around SecretStorage for Redis passwords: one secret per connection target, under
// a key prefix of its own. Passwords never go to settings, tree labels, tooltips or the output log.
import type * as vscode from 'vscode';

const PREFIX = 'lockwise.redis.password:';

export class RedisPasswords {
  constructor(private readonly storage: vscode.SecretStorage) {}

  get(targetId: string): Promise<string | undefined> {
    return Promise.resolve(this.storage.get(PREFIX + targetId));
  }

  async set(targetId: string, password: string): Promise<void> {
    await this.storage.store(PREFIX + targetId, password);
  }

  async delete(targetId: string): Promise<void> {
    await this.storage.delete(PREFIX + targetId);
  }

  /** Fires with the target id whose password changed (also from another window). */
  onDidChange(listener: (targetId: string) => void): vscode.Disposable {
    return this.storage.onDidChange((e) => {
      if (e.key.startsWith(PREFIX)) listener(e.key.slice(PREFIX.length));
    });
  }
}
