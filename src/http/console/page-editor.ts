import type { PageSection, PageService } from '../../domain/statuspage.ts';
import type { FormValues } from '../../../views/console/model.ts';
import { text } from './forms.ts';

/** A section as the API's body takes it back (services keep every field they had). */
type SectionInput = { name: string; services: Array<PageService | Omit<PageService, 'monitor_uuid'>> };
type Section = { name: string; services: PageService[] };

const swap = <T>(list: T[], i: number, j: number): T[] => {
  if (i < 0 || j < 0 || i >= list.length || j >= list.length) return list;
  const out = [...list];
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
};

/**
 * One edit of a page's sections from a console form (plain buttons, no script): `op` is
 * `add-section` (name), `remove-section`, `move-section` (dir up|down), `add-service` (uuid),
 * `remove-service` or `move-service` (section, service index, dir), `add-group` (section, name: a
 * service with `is_group` and no monitor), `add-child` (section, group index, uuid) or
 * `remove-child` (section, group index, child index). Out-of-range indexes change nothing; the result is validated by the API's schema and rules when stored.
 * @returns the new sections
 */
export function editSections(current: readonly PageSection[], f: FormValues): SectionInput[] {
  let sections: Section[] = current.map((s) => ({ name: s.name, services: [...s.services] }));
  const si = Number(text(f, 'section'));
  const vi = Number(text(f, 'service'));
  const delta = text(f, 'dir') === 'up' ? -1 : 1;
  const at = sections[si];
  const group = at?.services[vi];
  const fresh = (uuid: string): PageService => ({ monitor_uuid: uuid, name_shown: null, show_uptime: true, show_response_times: true, description: null, is_group: false, services: [] });
  switch (text(f, 'op')) {
    case 'add-section':
      sections.push({ name: text(f, 'name').trim(), services: [] });
      break;
    case 'remove-section':
      sections = sections.filter((_, i) => i !== si);
      break;
    case 'move-section':
      sections = swap(sections, si, si + delta);
      break;
    case 'add-service':
      if (at) at.services.push(fresh(text(f, 'uuid')));
      break;
    case 'add-group':
      if (at) at.services.push({ ...fresh(''), name_shown: text(f, 'name').trim(), is_group: true });
      break;
    case 'add-child':
      if (at && group?.is_group) at.services[vi] = { ...group, services: [...group.services, fresh(text(f, 'uuid'))] };
      break;
    case 'remove-child':
      if (at && group?.is_group) at.services[vi] = { ...group, services: group.services.filter((_, i) => i !== Number(text(f, 'child'))) };
      break;
    case 'remove-service':
      if (at) at.services = at.services.filter((_, i) => i !== vi);
      break;
    case 'move-service':
      if (at) at.services = swap(at.services, vi, vi + delta);
      break;
  }
  // A group has no monitor: stored as '', sent without one (the API's schema wants a uuid or nothing).
  return sections.map((sec) => ({ ...sec, services: sec.services.map((sv) => (sv.is_group && sv.monitor_uuid === '' ? (({ monitor_uuid: _, ...rest }) => rest)(sv) : sv)) }));
}
