/** The icons of the demo models' menus (fwAdmin's `menuIcons`; names from the UI's icon list). */
export const demoMenuIcons: Record<string, string> = {
  Book: 'book',
  Category: 'tags',
  Author: 'team',
  Salary: 'dollar',
  Contract: 'file-text',
  Project: 'project',
  Task: 'check-square',
};
