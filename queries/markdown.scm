(section (atx_heading heading_content: (inline) @name)) @definition.section
(setext_heading heading_content: (paragraph (inline) @name)) @definition.section
