/** platform_switches: operator switches; an absent row reads as its default. */
import type { DataSource, EntityManager } from '@platform/persistence';
import { queryRows } from '@platform/persistence';
import { PlatformSwitches, SWITCH_DEFAULTS, SwitchName } from '../domain/platform-switches';

export class PlatformSwitchesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async read(manager: EntityManager = this.dataSource.manager): Promise<PlatformSwitches> {
    const rows = await queryRows<{ name: SwitchName; value: string }>(
      manager,
      'SELECT name, value FROM platform_switches',
    );
    const switches: PlatformSwitches = { ...SWITCH_DEFAULTS };
    for (const row of rows) switches[row.name] = row.value;
    return switches;
  }

  async set(name: SwitchName, value: string, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(
      'INSERT INTO platform_switches (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()',
      [name, value],
    );
  }
}
