/** The dashboard's pages, one file each. */
export { BrandsPage } from './brands';
export { CalendarPage } from './calendar';
export { ChannelsPage } from './channels';
export { ComposerPage } from './composer';

export { PostPage } from './post';
